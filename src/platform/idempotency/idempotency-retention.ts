import { countDoomed, deleteInBatches, type BatchedTable } from '../lifecycle/batched-delete.js';
import type { RetentionRule } from '../lifecycle/retention.js';
import type { Config } from '../../config.js';

/**
 * Idempotency records are kept `PAYGRAPH_IDEMPOTENCY_WINDOW_MS` (7 days; at least 24 hours). A retry after that
 * window is still never run twice where it matters: a payment modification whose key is in its payment's event log
 * is answered from it (payment-for-verb.ts, `keyInLog`); a create's key names the payment its reference already
 * names, and a second create of a reference is refused.
 */
const RECORDS: BatchedTable = { table: 'idempotency_record', key: 'id', keyType: 'bigint', condition: 'created_at < ?' };

/**
 * Since when every key record is still kept, at `now`: a prune removes only records stamped before it. Records are
 * stamped on their sales unit's clock and pruned on the service's, which is never ahead of it (a test clock only moves
 * forward), so this bound taken on a unit's clock is never earlier than the prune's: a payment created since still
 * has the records of all its keys.
 */
export function keyRecordsKeptSince(config: Config, now: Date): Date {
  return new Date(now.getTime() - config.retention.idempotencyWindowMs);
}

export const idempotencyRetention: RetentionRule = {
  kind: 'idempotency-records',
  method: 'batches',
  cutoff: keyRecordsKeptSince,
  count: (em, cutoff) => countDoomed(em, RECORDS, cutoff),
  prune: (em, cutoff, config) => deleteInBatches(em, RECORDS, cutoff, config.retention.pruneBatchRows),
};
