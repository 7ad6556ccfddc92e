import { GraphQLError } from 'graphql';
import { boundTo, canonicalFilter, decodeCursor, encodeCursor, type CursorScope } from '../paging/cursor.js';
import type { Keyset } from '../paging/keyset.js';

export { idKeyset, newestFirst, oldestFirst, type Keyset } from '../paging/keyset.js';

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

export function invalidCursor(): GraphQLError {
  return new GraphQLError('after is not a cursor of this connection', { extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
}

/**
 * An edge whose cursor is made when a client selects it, once. A cursor is signed (an HMAC each): a page of 50
 * payments with their events made 200 that its query never asked for, a fifth of the page's CPU (bench/README.md).
 */
class Edge<T> {
  #cursor: string | undefined;

  constructor(
    readonly node: T,
    private readonly cursorOf: () => string,
  ) {}

  get cursor(): string {
    return (this.#cursor ??= this.cursorOf());
  }
}

/** Builds a connection from up to `size + 1` rows fetched in order: the extra row only says there is more. */
export function connectionFrom<T>(rows: T[], size: number, cursorOf: (row: T) => string, hasPreviousPage: boolean): Connection<T> {
  const edges = rows.slice(0, size).map((node) => new Edge(node, () => cursorOf(node)));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > size,
      hasPreviousPage,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges[edges.length - 1]?.cursor ?? null;
      },
    },
  };
}

/** The connection with each node replaced by `nodeOf(node)`, its edges keeping their cursors (still made on demand). */
export function mapNodes<T, R>(connection: Connection<T>, nodeOf: (node: T) => R): Connection<R> {
  return { ...connection, edges: connection.edges.map((edge) => new Edge(nodeOf(edge.node), () => edge.cursor)) };
}

export interface Connection<T> {
  edges: { readonly node: T; readonly cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; readonly startCursor: string | null; readonly endCursor: string | null };
}

/**
 * The list a connection's cursors belong to (its field, such as `Payment.events`), the filter and parent they page,
 * and the key that signs them. A cursor of another list, or of this list under another filter or parent, is refused
 * like a forged one.
 */
export interface GraphCursorScope extends CursorScope {
  filter: Record<string, unknown>;
  parent: string | null;
}

/** The scope of a list's cursors, signed with the service's token secret. */
export function cursorsOf(
  list: string,
  ctx: { config: { tokenSecret: string } },
  bound: { filter?: Record<string, unknown> | null; parent?: string | number | null } = {},
): GraphCursorScope {
  return {
    list,
    secret: ctx.config.tokenSecret,
    filter: canonicalFilter(bound.filter),
    parent: bound.parent === undefined || bound.parent === null ? null : String(bound.parent),
  };
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
 * position and row limit for the read, and the connection of the rows read. Cursors are the platform's one signed
 * cursor (src/platform/paging), bound to their list, filter and parent.
 */
export function keysetPage<T, K>(
  args: { first?: number | null; after?: string | null },
  keyset: Keyset<T, K>,
  defaultSize: number,
  scope: GraphCursorScope,
): KeysetPage<T, K> {
  const size = pageSize(args.first, defaultSize);
  let after: K | undefined;
  if (args.after) {
    const state = decodeCursor(scope, args.after);
    if (!state || !boundTo(state, scope.filter, scope.parent)) throw invalidCursor();
    after = keyset.read(state.key);
    if (after === undefined) throw invalidCursor();
  }
  const cursorOf = (row: T) => encodeCursor(scope, { key: keyset.keyOf(row), filter: scope.filter, parent: scope.parent });
  return {
    limit: size + 1,
    after,
    connection: <R extends T>(rows: R[]) => connectionFrom(rows, size, cursorOf, Boolean(args.after)),
  };
}
