import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import type { Job } from '../jobs/scheduler.js';
import type { DatabaseGauge } from '../observability/metrics.js';
import { pruneData, type RetentionRule } from './retention.js';
import { daysAhead } from './time-partitions.js';

/**
 * The prune, as a job every instance that runs jobs runs: at start, then every `PAYGRAPH_PRUNE_INTERVAL_MS` (an
 * hour), by the service's clock for the cutoffs. Instances prune at once safely (retention.ts); this only keeps one
 * instance from pruning at every tick. Each run first creates the days ahead of a partitioned table.
 *
 * The interval is elapsed time, but the days ahead are days of the service's clock, which the attempts are stamped
 * with: when that clock enters a day the last run did not prepare for, the days ahead are created at once, whatever
 * the interval says. A clock that jumps (a test clock moved by nights, a host resumed after a long suspend) would
 * otherwise run past the last day created, and every claim of a delivery, whose attempt row has no day to go to,
 * would fail until the next prune.
 */
export function pruneJob(services: Services, rules: readonly RetentionRule[]): Job {
  let lastRun: number | undefined;
  let preparedDay: string | undefined;
  return {
    name: 'prune',
    nextDueFor: () => Promise.resolve(null),
    async run() {
      const started = performance.now();
      const now = services.clock.now();
      const day = now.toISOString().slice(0, 10);
      if (lastRun === undefined || started - lastRun >= services.config.retention.pruneIntervalMs) {
        lastRun = started;
        preparedDay = day;
        await pruneData(forkEm(services.orm), rules, services.config, now, { dryRun: false });
      } else if (day !== preparedDay) {
        preparedDay = day;
        await prepareRetention(services, rules, now);
      }
    },
  };
}

/** Creates the days ahead of every partitioned table now, before the jobs start: the first insert needs its day. */
export async function prepareRetention(
  services: Services,
  rules: readonly RetentionRule[],
  now: Date = services.clock.now(),
): Promise<void> {
  for (const rule of rules) await rule.prepare?.(forkEm(services.orm), services.config, now);
}

/**
 * `paygraph_partitions_ahead{table}`: the days attached after today, per partitioned table. Alert when fewer than two
 * remain: the creator (the prune job) has not run for that long, and the first insert past the last day will fail.
 */
export function partitionsAheadGauge(services: Services): DatabaseGauge {
  return {
    name: 'paygraph_partitions_ahead',
    help: 'Daily partitions attached after today, per time-partitioned table (alert below 2)',
    labelNames: ['table'],
    async read() {
      const tables = (services.retention ?? []).flatMap((rule) => (rule.partitions ? [rule.partitions] : []));
      const now = services.clock.now();
      return Promise.all(
        tables.map(async (table) => ({ labels: { table: table.parent }, value: await daysAhead(forkEm(services.orm), table, now) })),
      );
    },
  };
}
