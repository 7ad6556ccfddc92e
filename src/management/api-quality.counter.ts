import type { Services } from '../platform/context.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { MSN_PATTERN } from '../platform/auth/header-rules.js';
import type { ObservedRequest } from '../platform/rest/request-observer.js';

/** The statuses API quality reports (spec 3); other statuses count in the total only. */
export const REPORTED_STATUSES = [200, 400, 401, 403, 404, 429, 500] as const;

interface Key {
  msn: string;
  endpoint: string;
  status: number;
  day: string;
}

/**
 * Requests per (sales unit, endpoint, status, day), counted in memory as they are answered and flushed as totals
 * every few seconds (`flushIntervalMs`) by every instance, whether or not it runs the jobs, since only it holds
 * its counts: a request pays no SQL statement for it, and a crash loses at most the counts since the last flush.
 * One counter per app (a test process may run several).
 */
export class ApiQualityCounter {
  private pending = new Map<string, number>();
  /** Reads of stored and pending counts in progress, and the flush that waits for them to end. */
  private readers = 0;
  private readersDone: (() => void)[] = [];
  private flushing: Promise<void> | undefined;

  record(request: ObservedRequest): void {
    // Anyone can name a sales unit in a header: only a caller accepted for it counts against it.
    if (!request.authenticated || !request.msn || !MSN_PATTERN.test(request.msn)) return;
    const key = JSON.stringify([
      request.msn,
      `${request.method} ${request.pattern}`,
      request.status,
      request.at.toISOString().slice(0, 10),
    ]);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /** Counts of one sales unit not flushed yet, so a read right after a request sees it. */
  pendingFor(msn: string): { endpoint: string; status: number; count: number }[] {
    const found: { endpoint: string; status: number; count: number }[] = [];
    for (const [text, count] of this.pending) {
      const key = parseKey(text);
      if (key.msn === msn) found.push({ endpoint: key.endpoint, status: key.status, count });
    }
    return found;
  }

  /**
   * Runs `read` (of the stored totals, then `pendingFor`) while no flush runs: a flush moves a batch from memory to
   * the table, and a read beside it could see the batch in neither (read the table before the insert committed,
   * memory after the batch left it) or in both.
   */
  async whileSettled<T>(read: () => Promise<T>): Promise<T> {
    while (this.flushing) await this.flushing;
    this.readers++;
    try {
      return await read();
    } finally {
      if (--this.readers === 0) for (const done of this.readersDone.splice(0)) done();
    }
  }

  /** Adds the pending counts to the stored totals in one statement; on failure they stay pending for the next run. */
  async flush(em: Em): Promise<number> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return 0;
    let finished!: () => void;
    this.flushing = new Promise<void>((resolve) => (finished = resolve));
    try {
      // Reads that started first finish first; later ones wait for this flush.
      if (this.readers > 0) await new Promise<void>((resolve) => this.readersDone.push(resolve));
      return await this.flushBatch(em);
    } finally {
      this.flushing = undefined;
      finished();
    }
  }

  private async flushBatch(em: Em): Promise<number> {
    const batch = this.pending;
    this.pending = new Map();
    const keys = [...batch.keys()].map(parseKey);
    try {
      const values = keys.map(() => '(?, ?, ?, ?::date, ?)').join(', ');
      const params = keys.flatMap((k, i) => [k.msn, k.endpoint, k.status, k.day, [...batch.values()][i]!]);
      await em.execute(
        `insert into api_quality_count (msn, endpoint, status, day, count) values ${values}
         on conflict (msn, endpoint, status, day) do update set count = api_quality_count.count + excluded.count`,
        params,
      );
    } catch (error) {
      for (const [key, count] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + count);
      throw error;
    }
    return batch.size;
  }
}

function parseKey(text: string): Key {
  const [msn, endpoint, status, day] = JSON.parse(text) as [string, string, number, string];
  return { msn, endpoint, status, day };
}

const counters = new WeakMap<Services, ApiQualityCounter>();

/** The app's counter (created on first use). */
export function apiQualityCounter(services: Services): ApiQualityCounter {
  let counter = counters.get(services);
  if (!counter) {
    counter = new ApiQualityCounter();
    counters.set(services, counter);
  }
  return counter;
}

export async function flushApiQuality(services: Services): Promise<void> {
  await apiQualityCounter(services).flush(forkEm(services.orm));
}
