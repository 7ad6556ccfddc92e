import { countDoomed, deleteInBatches, type BatchedTable } from '../platform/lifecycle/batched-delete.js';
import type { RetentionRule } from '../platform/lifecycle/retention.js';

/**
 * The consented data is shared for 168 hours after the approval (`expires_at`, user-consent.rules.ts): userinfo
 * refuses after it, and no copy of the data is stored, so nothing else is kept of it. The consent record itself (who
 * consented to share which scopes with which sales unit, when, through what) is the proof that the sharing was
 * lawful (GDPR art. 7(1)); it is kept `PAYGRAPH_CONSENT_RECORD_MS` (5 years) after its access ended, the period the
 * Norwegian Bookkeeping Act keeps the payment it was given with, and then removed.
 */
const CONSENTS: BatchedTable = { table: 'user_consent', key: 'id', keyType: 'uuid', condition: 'expires_at < ?' };

export const consentRetention: RetentionRule = {
  kind: 'user-consents',
  method: 'batches',
  cutoff: (config, now) => new Date(now.getTime() - config.retention.consentRecordMs),
  count: (em, cutoff) => countDoomed(em, CONSENTS, cutoff),
  prune: (em, cutoff, config) => deleteInBatches(em, CONSENTS, cutoff, config.retention.pruneBatchRows),
};
