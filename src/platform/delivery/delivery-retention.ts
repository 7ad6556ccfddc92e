import type { Config } from '../../config.js';
import { countDoomed, deleteInBatches, type BatchedTable } from '../lifecycle/batched-delete.js';
import type { RetentionRule } from '../lifecycle/retention.js';
import { createDaysAhead, dropDaysBefore, rowsBefore, type TimePartitions } from '../lifecycle/time-partitions.js';

/**
 * Deliveries and their attempts are kept for the retry window (7 days) plus `PAYGRAPH_DELIVERY_HISTORY_MS` (30 days):
 * one cutoff for both. An attempt is made after its delivery was created, so an attempt older than the cutoff belongs
 * to a delivery older than it: dropping the attempt log's old days removes no attempt of a delivery that is kept.
 * Attempts have no foreign key (Migration20261205040000DataLifecycle); the claim writes an attempt in the statement
 * that locks its delivery, and every read of attempts joins or is keyed by its delivery, so an attempt whose delivery
 * went first (pruned, or deleted with its registration) is never shown and goes with its day.
 */
export function deliveryCutoff(config: Config, now: Date): Date {
  return new Date(now.getTime() - config.webhooks.retryWindowMs - config.retention.deliveryHistoryMs);
}

export const ATTEMPT_LOG: TimePartitions = { parent: 'delivery_attempt' };

/** Finished deliveries (a pending one is within its retry window) created before the cutoff. */
const DELIVERIES: BatchedTable = { table: 'delivery', key: 'id', keyType: 'bigint', condition: `created_at < ? and status <> 'pending'` };

export const deliveryRetention: readonly RetentionRule[] = [
  {
    kind: 'delivery-attempts',
    method: 'partitions',
    partitions: ATTEMPT_LOG,
    cutoff: deliveryCutoff,
    count: (em, cutoff) => rowsBefore(em, ATTEMPT_LOG, cutoff),
    prune: (em, cutoff) => dropDaysBefore(em, ATTEMPT_LOG, cutoff),
    prepare: async (em, config, now) => {
      await createDaysAhead(em, ATTEMPT_LOG, now, config.retention.partitionsAhead);
    },
  },
  {
    kind: 'deliveries',
    method: 'batches',
    cutoff: deliveryCutoff,
    count: (em, cutoff) => countDoomed(em, DELIVERIES, cutoff),
    prune: (em, cutoff, config) => deleteInBatches(em, DELIVERIES, cutoff, config.retention.pruneBatchRows),
  },
];
