import { createHmac, timingSafeEqual } from 'node:crypto';
import { GraphQLError } from 'graphql';

/** Opaque global ids: `Type:key`, base64url-encoded. */
export function toGlobalId(type: string, key: string | number): string {
  return Buffer.from(`${type}:${key}`, 'utf8').toString('base64url');
}

export function fromGlobalId(id: string): { type: string; key: string } | undefined {
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  return { type: text.slice(0, colon), key: text.slice(colon + 1) };
}

export const MAX_PAGE_SIZE = 100;

export function pageSize(first: number | null | undefined, fallback: number): number {
  const size = first ?? fallback;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw new GraphQLError(`first must be from 0 to ${MAX_PAGE_SIZE}`, { extensions: { code: 'BAD_USER_INPUT', field: 'first' } });
  }
  return size;
}

/** The keyset parts of a cursor, before signing (base64url JSON). */
function encodeCursor(parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): unknown[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts)) return parts;
  } catch {
    // fall through to the error below
  }
  throw invalidCursor();
}

export function invalidCursor(): GraphQLError {
  return new GraphQLError('after is not a cursor of this connection', { extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
}

/** Builds a connection from up to `size + 1` rows fetched in order: the extra row only says there is more. */
export function connectionFrom<T>(rows: T[], size: number, cursorOf: (row: T) => string, hasPreviousPage: boolean): Connection<T> {
  const page = rows.slice(0, size);
  const edges = page.map((node) => ({ node, cursor: cursorOf(node) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > size,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

export interface Connection<T> {
  edges: { node: T; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** The order of a connection's rows: the key a row's cursor carries, and that key read back from a cursor. */
export interface Keyset<T, K> {
  keyOf(row: T): unknown[];
  /** The key of the cursor's parts; undefined when they are not a key of this order. */
  read(parts: unknown[]): K | undefined;
}

/** Rows ordered by their integer id (events, deliveries, attempts). */
export const idKeyset: Keyset<{ id: number }, number> = {
  keyOf: (row) => [row.id],
  read: ([id, ...rest]) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && rest.length === 0 ? id : undefined),
};

/**
 * The list a cursor belongs to (its field, such as `Payment.events`) and the key that signs it. Every connection
 * hands out cursors that are tamper-evident (a changed byte fails the signature) and bound to their list: a cursor
 * of another list is refused like a forged one.
 */
export interface CursorScope {
  list: string;
  secret: string;
}

/** The scope of a list's cursors, signed with the service's token secret. */
export function cursorsOf(list: string, ctx: { config: { tokenSecret: string } }): CursorScope {
  return { list, secret: ctx.config.tokenSecret };
}

export interface KeysetPage<T, K> {
  /** Rows to read: the page and one more, which only tells whether there is a next page. */
  limit: number;
  /** The key after which the page starts (never an OFFSET). */
  after: K | undefined;
  connection<R extends T>(rows: R[]): Connection<R>;
}

/**
 * Every Relay list of the graph pages this way: `first` (capped at 100) and an opaque `after` cursor in, the keyset
 * position and row limit for the read, and the connection of the rows read. Cursors are signed and bound to their
 * list (see CursorScope).
 */
export function keysetPage<T, K>(
  args: { first?: number | null; after?: string | null },
  keyset: Keyset<T, K>,
  defaultSize: number,
  scope: CursorScope,
): KeysetPage<T, K> {
  const size = pageSize(args.first, defaultSize);
  let after: K | undefined;
  if (args.after) {
    after = keyset.read(decodeScopedCursor(scope, args.after));
    if (after === undefined) throw invalidCursor();
  }
  return {
    limit: size + 1,
    after,
    connection: <R extends T>(rows: R[]) =>
      connectionFrom(rows, size, (row) => encodeScopedCursor(scope, keyset.keyOf(row)), Boolean(args.after)),
  };
}

function cursorSignature(scope: CursorScope, body: string): Buffer {
  return createHmac('sha256', `graph-cursor:${scope.secret}`).update(`${scope.list}\n${body}`).digest().subarray(0, 16);
}

/** `<keyset parts, base64url JSON>.<signature over the list and the parts>`. */
export function encodeScopedCursor(scope: CursorScope, parts: unknown[]): string {
  const body = encodeCursor(parts);
  return `${body}.${cursorSignature(scope, body).toString('base64url')}`;
}

export function decodeScopedCursor(scope: CursorScope, cursor: string): unknown[] {
  const [body, mac, ...rest] = cursor.split('.');
  if (!body || !mac || rest.length > 0) throw invalidCursor();
  const expected = cursorSignature(scope, body);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
  return decodeCursor(body);
}
