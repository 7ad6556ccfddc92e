import { countDoomed, deleteInBatches, type BatchedTable } from '../platform/lifecycle/batched-delete.js';
import type { RetentionRule } from '../platform/lifecycle/retention.js';

/**
 * Personal data on a payment is kept `PAYGRAPH_PAYMENT_PERSONAL_DATA_MS` (30 days) after the payment ended: Express's
 * `shippingDetails` (the address the user shipped to) and `profile_sub`, the link to the profile `userDetails` and
 * `profile.sub` are read from. The merchant ships and handles a return within that time (the 14-day right of
 * withdrawal plus the way back). The payment itself, its amounts and its events are the financial record and stay;
 * `personal_data_removed_at` says when the data went, so a read says it was removed rather than showing nothing.
 *
 * A payment has ended when nothing more can be reserved or captured on it: ABORTED, EXPIRED or TERMINATED, or
 * AUTHORIZED with all of it captured or cancelled (a later refund needs no address). The time counts from its last
 * change. An authorization still open keeps the data: the merchant may yet ship.
 *
 * Removed by bounded batched updates through the partial index of payments that still hold such data
 * (Migration20261205060100PaymentPersonalData); each batch's rows are locked FOR UPDATE SKIP LOCKED, so a
 * modification holding a payment is skipped this time, never waited for, and a batch waits for no writer.
 */
const ENDED = `(state in ('ABORTED', 'EXPIRED', 'TERMINATED') or (state = 'AUTHORIZED' and captured_amount + cancelled_amount >= authorized_amount))`;

const PERSONAL_DATA: BatchedTable = {
  table: 'payment',
  key: 'id',
  keyType: 'uuid',
  condition: `personal_data_removed_at is null and (shipping_details is not null or profile_sub is not null) and updated_at < ? and ${ENDED}`,
  set: 'shipping_details = null, profile_sub = null, personal_data_removed_at = ?',
};

export const paymentPersonalDataRetention: RetentionRule = {
  kind: 'payment-personal-data',
  method: 'batches',
  cutoff: (config, now) => new Date(now.getTime() - config.retention.paymentPersonalDataMs),
  count: (em, cutoff) => countDoomed(em, PERSONAL_DATA, cutoff),
  prune: (em, cutoff, config) =>
    deleteInBatches(em, PERSONAL_DATA, cutoff, config.retention.pruneBatchRows, [
      new Date(cutoff.getTime() + config.retention.paymentPersonalDataMs),
    ]),
};
