import type { Config } from '../../config.js';
import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { afterFailedCallbackAttempt, callbackKinds, type CallbackKind } from './callback-kinds.js';
import type { ClaimedDelivery, DeliveryChannel, DeliveryPolicy, RecordedAttempt, RecordedOutcome } from './delivery-channel.js';
import { EARLIER_CALLBACK_PENDING } from './delivery-order.js';
import { claimDeliveries, claimedRow, leaseLength, recordAttempts, type DeliveryFamily, type ReceiverLimits } from './delivery-table.js';

/** Callbacks: the URL (chosen by the recipient per callback) is the receiver. */
const CALLBACKS: DeliveryFamily = {
  // Only kinds registered in this process are claimed: another's would be sent with a guessed policy. Due by its
  // sales unit's time: a callback recorded at a unit's moved test clock is due at once.
  due: `?::jsonb @> jsonb_build_array(d.kind) and d.next_attempt_at <= ?::timestamptz
      + coalesce((select t.offset_ms from test_clock t where t.msn = d.msn), 0) * interval '1 millisecond'`,
  heldBack: EARLIER_CALLBACK_PENDING,
  returning: { from: '', where: '', columns: 'd.kind, d.url, d.authorization_value, d.body, d.msn' },
};

/** One policy per callback kind, as the kind declares it; its onOutcome runs in the recording transaction. */
function policyOf(kind: CallbackKind, config: Config): DeliveryPolicy {
  const onOutcome = kind.onOutcome;
  return {
    metricsKind: 'callback',
    timeoutMs: kind.timeoutMs(config),
    readResponseBody: kind.readResponseBody,
    afterFailedAttempt: (attemptCount, _createdAt, now) => afterFailedCallbackAttempt(attemptCount, now, kind.retry),
    ...(onOutcome ? { onOutcome: (em, outcome, now) => onOutcome.call(kind, em, outcome, now) } : {}),
  };
}

/**
 * The PSP make-payment callback, checkout callbacks: POSTed with the body recorded once and the Authorization value
 * the recipient chose, with the timeout and retries of their kind (callback-kinds.ts).
 */
export function callbackChannel(services: Services): DeliveryChannel {
  const policies = new Map<CallbackKind, DeliveryPolicy>();
  const policy = (kind: CallbackKind) => policies.get(kind) ?? policies.set(kind, policyOf(kind, services.config)).get(kind)!;
  return {
    name: 'callbacks',
    async claim(em: Em, limit: number, perReceiver: ReceiverLimits, held?: readonly number[]): Promise<ClaimedDelivery[]> {
      const kinds = callbackKinds.names();
      if (kinds.length === 0) return [];
      const now = services.clock.now();
      // One lease length for every kind: the longest timeout's. A lease only matters when its holder dies.
      const leaseMs = leaseLength(services.config, callbackKinds.longestTimeoutMs(services.config));
      const leaseUntil = new Date(now.getTime() + leaseMs);
      const rows = await claimDeliveries(em, CALLBACKS, {
        now,
        dueParams: [JSON.stringify(kinds), now],
        leaseUntil,
        limit,
        perReceiver,
        held,
      });
      return rows.map((row) => {
        // Claimed only when registered here (the kind filter of `due`).
        const kind = callbackKinds.get(row.kind as string)!;
        const msn = (row.msn as string | null) ?? null;
        const claimed = claimedRow(row, leaseUntil, leaseMs);
        const authorization = (row.authorization_value as string | null) ?? null;
        const url = row.url as string;
        const body = row.body as string;
        return {
          ...claimed,
          policy: policy(kind),
          // Retries are timed by the unit's clock, the one its due time is compared with.
          now: () => (msn === null ? services.clock.now() : services.testClocks.of(msn).now()),
          request: () => {
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (authorization !== null) headers.authorization = authorization;
            // The trace of the request that recorded the callback (W3C Trace Context), when it was traced.
            if (claimed.traceParent) headers.traceparent = claimed.traceParent;
            return { url: new URL(url), body, headers };
          },
        };
      });
    },
    record: (em: Em, attempts: readonly RecordedAttempt[], outcomes: readonly RecordedOutcome[]) => recordAttempts(em, attempts, outcomes),
  };
}
