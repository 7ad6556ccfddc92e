import { countDoomed, deleteInBatches, type BatchedTable } from '../lifecycle/batched-delete.js';
import type { RetentionRule } from '../lifecycle/retention.js';

/**
 * Idempotency records are kept `PAYGRAPH_IDEMPOTENCY_WINDOW_MS` (7 days; at least 24 hours). A retry after that
 * window is still never run twice where it matters: a payment modification whose key is in its payment's event log
 * is answered from it (payment-for-verb.ts, `keyInLog`); a create's key names the payment its reference already
 * names, and a second create of a reference is refused.
 */
const RECORDS: BatchedTable = { table: 'idempotency_record', key: 'id', keyType: 'bigint', condition: 'created_at < ?' };

export const idempotencyRetention: RetentionRule = {
  kind: 'idempotency-records',
  method: 'batches',
  cutoff: (config, now) => new Date(now.getTime() - config.retention.idempotencyWindowMs),
  count: (em, cutoff) => countDoomed(em, RECORDS, cutoff),
  prune: (em, cutoff, config) => deleteInBatches(em, RECORDS, cutoff, config.retention.pruneBatchRows),
};
