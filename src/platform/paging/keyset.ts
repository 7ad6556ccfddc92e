/** The order of a list's rows: the key a row's cursor carries, and that key read back from a cursor. */
export interface Keyset<T, K> {
  keyOf(row: T): unknown[];
  /** The key of the cursor's parts; undefined when they are not a key of this order. */
  read(parts: unknown[]): K | undefined;
}

/** Rows ordered by their integer id (events, deliveries, attempts, ledger rows). */
export const idKeyset: Keyset<{ id: number }, number> = {
  keyOf: (row) => [row.id],
  read: ([id, ...rest]) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && rest.length === 0 ? id : undefined),
};

export interface CreatedKey {
  createdAt: Date;
  id: string;
}

/** Rows newest first by (createdAt, id): payments, checkout sessions, PSP payments, product orders. */
export function newestFirst<T extends { createdAt: Date | string; id: string }>(): Keyset<T, CreatedKey> {
  return {
    // A string is kept as read (it may carry microseconds a Date would drop).
    keyOf: (row) => [typeof row.createdAt === 'string' ? row.createdAt : row.createdAt.toISOString(), row.id],
    read: ([createdAt, id, ...rest]) => {
      const date = typeof createdAt === 'string' ? new Date(createdAt) : undefined;
      return !date || Number.isNaN(date.getTime()) || typeof id !== 'string' || rest.length > 0 ? undefined : { createdAt: date, id };
    },
  };
}

/** Rows oldest first by (createdAt, id): a wallet user's pending payments. The key is newestFirst's, read forward. */
export const oldestFirst = newestFirst;

/** The rows after a (createdAt, id) position in oldest-first order, as an entity filter (nothing without a position). */
export function newerThan(key: CreatedKey | undefined) {
  return key ? { $or: [{ createdAt: { $gt: key.createdAt } }, { createdAt: key.createdAt, id: { $gt: key.id } }] } : {};
}

/** The newest-first order of a (createdAt, id) list, as an entity query's `orderBy`. */
export function newestFirstOrder() {
  return [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
}

/**
 * The rows after a (createdAt, id) position in newest-first order, as an entity filter to spread into a query's
 * `where` (nothing without a position). The one definition of the position's condition; `olderThanSql` writes it
 * for a statement of its own.
 */
export function olderThan(key: CreatedKey | undefined) {
  return key ? { $or: [{ createdAt: { $lt: key.createdAt } }, { createdAt: key.createdAt, id: { $lt: key.id } }] } : {};
}

/** `olderThan` as SQL over the `created_at` and `id` columns, with its parameters. */
export function olderThanSql(key: CreatedKey): { sql: string; params: unknown[] } {
  return { sql: '(created_at, id) < (?, ?)', params: [key.createdAt, key.id] };
}
