import type { Config } from '../config.js';
import { countDoomed, deleteInBatches, type BatchedTable } from '../platform/lifecycle/batched-delete.js';
import type { RetentionRule } from '../platform/lifecycle/retention.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * API quality covers the last `PAYGRAPH_API_QUALITY_DAYS` (90) UTC days, today included: the read counts those days
 * only, and the prune removes the days before them, so what a caller reads does not depend on when a prune ran.
 */
export function apiQualitySince(config: Config, now: Date): Date {
  return new Date((Math.floor(now.getTime() / DAY_MS) - config.retention.apiQualityDays + 1) * DAY_MS);
}

/** Its key is four columns: batches walk the rows' physical order instead. */
const COUNTS: BatchedTable = { table: 'api_quality_count', key: 'ctid', keyType: 'tid', condition: 'day < ?::date' };

export const apiQualityRetention: RetentionRule = {
  kind: 'api-quality-counts',
  method: 'batches',
  cutoff: apiQualitySince,
  count: (em, cutoff) => countDoomed(em, COUNTS, cutoff),
  prune: (em, cutoff, config) => deleteInBatches(em, COUNTS, cutoff, config.retention.pruneBatchRows),
};
