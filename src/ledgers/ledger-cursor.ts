import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';

/**
 * The report API's `cursor`: the query it continues (which list, which ledger, which filters) and the keyset
 * position (the last row's id), signed with the service's key. Opaque to clients, tamper-evident (a changed byte
 * fails the signature), and bound to its query: a cursor of another list, ledger or filter is refused. Never an
 * OFFSET: the next page starts after the id it carries.
 */
export interface CursorState<F> {
  kind: 'ledgers' | 'transactions';
  ledgerId?: string;
  filter: F;
  afterId: number;
}

function signature(secret: string, body: string): Buffer {
  return createHmac('sha256', `ledger-cursor:${secret}`).update(body).digest().subarray(0, 16);
}

export function encodeLedgerCursor<F>(secret: string, state: CursorState<F>): string {
  const body = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
  return `${body}.${signature(secret, body).toString('base64url')}`;
}

export function decodeLedgerCursor<F>(secret: string, cursor: string, kind: CursorState<F>['kind']): CursorState<F> {
  const [body, mac, ...rest] = cursor.split('.');
  const refused = AppError.validation([{ name: 'cursor', reason: 'Not a cursor of this query' }]);
  if (!body || !mac || rest.length > 0) throw refused;
  const expected = signature(secret, body);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused;
  let state: CursorState<F>;
  try {
    state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState<F>;
  } catch {
    throw refused;
  }
  if (state.kind !== kind || !Number.isSafeInteger(state.afterId)) throw refused;
  return state;
}
