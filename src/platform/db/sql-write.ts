/**
 * One write (an `insert`, `update` or `delete`, values bound in `params` in order) that a path sends together with
 * others as the data-modifying CTEs of one statement, rather than one statement each or through a flush.
 */
export interface SqlWrite {
  sql: string;
  params: unknown[];
}

/**
 * The writes as one statement: each a CTE, then `final` (a statement of its own, e.g. the idempotency key's record;
 * absent, `select 1`). PostgreSQL runs every data-modifying CTE once, to completion, whether or not anything reads it.
 */
export function oneStatement(writes: readonly SqlWrite[], final?: SqlWrite): SqlWrite {
  const ctes = writes.map((write, i) => `write_${i} as (${write.sql})`);
  const last = final ?? { sql: 'select 1', params: [] };
  return {
    sql: ctes.length > 0 ? `with ${ctes.join(',\n')}\n${last.sql}` : last.sql,
    params: [...writes.flatMap((write) => write.params), ...last.params],
  };
}
