import type { Em } from '../db/orm.js';

/**
 * The interim prune of a table not (yet) partitioned by time: bounded deletes by key ranges, each its own statement
 * and commit, walking the key upwards, so no delete is long and a row lock is held only for one batch. Rows another
 * instance's prune holds are skipped (SKIP LOCKED), so instances pruning at once take disjoint rows. Row deletes take
 * ROW EXCLUSIVE on the table, which no writer waits for. A table whose rows are kept and only some columns go
 * (personal data on a payment) names them in `set`: the batches then update those columns instead of deleting.
 */
export interface BatchedTable {
  table: string;
  /** The key the batches walk (the primary key; `ctid` for a table whose key is several columns). */
  key: string;
  /** Its SQL type, to compare a bound value with it. */
  keyType: 'bigint' | 'uuid' | 'tid';
  /** The rows that may go, given the cutoff as its one `?`. */
  condition: string;
  /** Instead of deleting the rows, this SET clause clears what goes; its `?`s are bound to `deleteInBatches`' `setParams`. */
  set?: string;
}

/** How many rows a prune at `cutoff` would remove. */
export async function countDoomed(em: Em, table: BatchedTable, cutoff: Date): Promise<number> {
  const [row] = await em.execute<{ rows: string | number }[]>(`select count(*) as rows from ${table.table} where ${table.condition}`, [
    cutoff,
  ]);
  return Number(row?.rows ?? 0);
}

/** Deletes the rows the condition names, `batchRows` at a time in key order; returns how many went. */
export async function deleteInBatches(
  em: Em,
  table: BatchedTable,
  cutoff: Date,
  batchRows: number,
  setParams: readonly unknown[] = [],
): Promise<number> {
  let removed = 0;
  let after: string | undefined;
  for (;;) {
    const rows = await em.execute<{ key: string }[]>(
      `with batch as (
         select ${table.key} as key from ${table.table}
         where ${table.condition}${after === undefined ? '' : ` and ${table.key} > ?::${table.keyType}`}
         order by ${table.key} limit ? for update skip locked
       )
       ${table.set ? `update ${table.table} t set ${table.set} from batch` : `delete from ${table.table} t using batch`}
       where t.${table.key} = batch.key and ${table.condition}
       returning batch.key::text as key`,
      [cutoff, ...(after === undefined ? [] : [after]), batchRows, ...(table.set ? setParams : []), cutoff],
    );
    removed += rows.length;
    if (rows.length < batchRows) return removed;
    after = rows.map((r) => r.key).reduce((a, b) => (compareKeys(table.keyType, a, b) >= 0 ? a : b));
  }
}

function compareKeys(type: BatchedTable['keyType'], a: string, b: string): number {
  if (type === 'bigint') return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
  if (type === 'tid') {
    const [pa, ia] = a.slice(1, -1).split(',').map(Number);
    const [pb, ib] = b.slice(1, -1).split(',').map(Number);
    return pa! - pb! || ia! - ib!;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
