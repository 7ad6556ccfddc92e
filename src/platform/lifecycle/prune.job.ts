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
 */
export function pruneJob(services: Services, rules: readonly RetentionRule[]): Job {
  let lastRun: number | undefined;
  return {
    name: 'prune',
    nextDueFor: () => Promise.resolve(null),
    async run() {
      const started = performance.now();
      if (lastRun !== undefined && started - lastRun < services.config.retention.pruneIntervalMs) return;
      lastRun = started;
      await pruneData(forkEm(services.orm), rules, services.config, services.clock.now(), { dryRun: false });
    },
  };
}

/** Creates the days ahead of every partitioned table now, before the jobs start: the first insert needs its day. */
export async function prepareRetention(services: Services, rules: readonly RetentionRule[]): Promise<void> {
  for (const rule of rules) await rule.prepare?.(forkEm(services.orm), services.config, services.clock.now());
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
