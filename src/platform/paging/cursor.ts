import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one signed cursor of every list, on both faces. A cursor carries its keyset position, the filter it pages
 * and its parent (the ledger of a ledger's transactions, say), and is signed over the list it belongs to: opaque
 * to clients, tamper-evident (a changed byte fails the signature), and refused by any other list. Whether the
 * filter and parent it carries are the ones asked for is the caller's check (`boundTo`), since a REST cursor may
 * be sent alone and carry its filter on.
 */
export interface CursorScope {
  /** The list the cursor pages, e.g. `Ledger.transactions` or `GET /report/v1/ledgertransactions`. */
  list: string;
  secret: string;
}

export interface CursorState {
  /** The keyset position: the last row's key. */
  key: unknown[];
  filter: Record<string, unknown>;
  parent: string | null;
}

function signature(scope: CursorScope, body: string): Buffer {
  return createHmac('sha256', `cursor:${scope.secret}`).update(`${scope.list}\n${body}`).digest().subarray(0, 16);
}

/** `<state, base64url JSON>.<signature over the list and the state>`. */
export function encodeCursor(scope: CursorScope, state: CursorState): string {
  const body = Buffer.from(JSON.stringify({ k: state.key, f: canonicalFilter(state.filter), p: state.parent }), 'utf8').toString(
    'base64url',
  );
  return `${body}.${signature(scope, body).toString('base64url')}`;
}

/** The state of a cursor this list signed; undefined for anything else. */
export function decodeCursor(scope: CursorScope, cursor: string): CursorState | undefined {
  const [body, mac, ...rest] = cursor.split('.');
  if (!body || !mac || rest.length > 0) return undefined;
  const expected = signature(scope, body);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const { k, f, p } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { k: unknown; f: unknown; p: unknown };
    if (!Array.isArray(k) || typeof f !== 'object' || f === null || Array.isArray(f) || (p !== null && typeof p !== 'string')) {
      return undefined;
    }
    return { key: k, filter: f as Record<string, unknown>, parent: p };
  } catch {
    return undefined;
  }
}

/** A filter without its unset entries, keys in order: two spellings of one filter compare equal. */
export function canonicalFilter(filter: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const entries = Object.entries(filter ?? {}).filter(([, value]) => value !== undefined && value !== null);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Whether a cursor pages this filter under this parent. */
export function boundTo(state: CursorState, filter: Record<string, unknown> | null | undefined, parent: string | null): boolean {
  return state.parent === parent && JSON.stringify(canonicalFilter(state.filter)) === JSON.stringify(canonicalFilter(filter));
}
