import type { Services } from '../context.js';
import { forkEm, type Em } from '../db/orm.js';
import type { Timeline } from '../test-clocks.js';

/** Rows a due-work job claims per transaction. */
export const DUE_WORK_BATCH = 100;

/**
 * Runs a job over work that falls due by each sales unit's time (expiries, timeouts): each timeline in turn (every
 * unit with a moved test clock, then the rest on the service's clock), one transaction per batch. `batch` claims at
 * most `limit` due rows with SKIP LOCKED, so instances running the job at once take disjoint rows, acts on them and
 * says how many it took; a full batch is followed by another, so a backlog drains in one run without one long
 * transaction.
 */
export async function drainDueWork(
  services: Services,
  batch: (em: Em, timeline: Timeline, limit: number) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (const timeline of services.testClocks.timelines()) {
    for (;;) {
      const count = await forkEm(services.orm).transactional((em) => batch(em, timeline, DUE_WORK_BATCH));
      total += count;
      if (count < DUE_WORK_BATCH) break;
    }
  }
  return total;
}

/**
 * The earliest time a query finds for a unit's due work (a `min(...)` in the column `due`), for a job's `nextDueFor`;
 * null when it finds none.
 */
export async function earliestDue(services: Services, sql: string, params: unknown[]): Promise<Date | null> {
  const [row] = await forkEm(services.orm).execute<{ due: string | Date | null }[]>(sql, params);
  return row?.due == null ? null : new Date(row.due);
}
