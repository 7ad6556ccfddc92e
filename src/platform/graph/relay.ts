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

export function encodeCursor(parts: (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): unknown[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts)) return parts;
  } catch {
    // fall through to the error below
  }
  throw invalidCursor();
}

/** The row id an `after` cursor carries, for connections ordered by id (events, deliveries, attempts). */
export function idCursor(after: string): number {
  const [id, ...rest] = decodeCursor(after);
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || rest.length > 0) throw invalidCursor();
  return id;
}

export function invalidCursor(): GraphQLError {
  return new GraphQLError('after is not a cursor of this connection', { extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
}

/** Builds a connection from up to `size + 1` rows fetched in order: the extra row only says there is more. */
export function connectionFrom<T>(rows: T[], size: number, cursorOf: (row: T) => string, hasPreviousPage: boolean) {
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
