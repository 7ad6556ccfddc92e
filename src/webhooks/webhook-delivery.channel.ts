import type { Services } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { eventTypes } from '../platform/events/event-types.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent } from '../platform/events/outbox-event.js';
import type {
  ClaimedDelivery,
  DeliveryChannel,
  DeliveryPolicy,
  RecordedAttempt,
  RecordedOutcome,
} from '../platform/delivery/delivery-channel.js';
import { EARLIER_DELIVERY_PENDING, EARLIER_EVENT_UNDISPATCHED } from '../platform/delivery/delivery-order.js';
import { claimDeliveries, claimedRow, leaseEnd, recordAttempts, type DeliveryFamily } from '../platform/delivery/delivery-table.js';
import { WEBHOOK_KIND } from '../platform/delivery/delivery.entity.js';
import { afterFailedAttempt } from '../platform/delivery/webhook-retry.js';
import { signWebhookRequest } from '../platform/delivery/webhook-signature.js';

/** The header a receiver de-duplicates on: the outbox id of the event, the same on every retry. */
export const EVENT_ID_HEADER = 'x-paygraph-event-id';

/** Webhook deliveries: one per (registration, event), the registration being the receiver. */
const WEBHOOK_DELIVERIES: DeliveryFamily = {
  due: `d.kind = '${WEBHOOK_KIND}' and d.next_attempt_at <= ?`,
  heldBack: `(${EARLIER_DELIVERY_PENDING} or ${EARLIER_EVENT_UNDISPATCHED})`,
  returning: {
    from: ', webhook w, domain_event e',
    where: ' and w.id = d.webhook_id and e.id = d.event_id',
    columns: `w.url, w.secret, ${OUTBOX_EVENT_COLUMNS}`,
  },
};

/**
 * Webhooks: signed as the public webhook definition describes, at the moment of sending; the body is the event's
 * domain's (see EventTypeRegistry); retried with backoff for the retry window (7 days by default) from the event.
 */
export function webhookDeliveryChannel(services: Services): DeliveryChannel {
  const { config, clock } = services;
  const policy: DeliveryPolicy = {
    metricsKind: 'webhook',
    timeoutMs: config.webhooks.timeoutMs,
    afterFailedAttempt: (attemptCount, createdAt, now) => afterFailedAttempt(attemptCount, createdAt, now, config.webhooks),
  };
  return {
    name: 'webhooks',
    async claim(em: Em, limit: number, perReceiver: number): Promise<ClaimedDelivery[]> {
      const now = clock.now();
      const leaseUntil = leaseEnd(now, config.webhooks.timeoutMs);
      const rows = await claimDeliveries(em, WEBHOOK_DELIVERIES, { now, dueParams: [now], leaseUntil, limit, perReceiver });
      return rows.map((row) => {
        const event = toOutboxEvent(row);
        const claimed = claimedRow(row, leaseUntil);
        const url = row.url as string;
        const secret = row.secret as string;
        return {
          ...claimed,
          policy,
          now: () => clock.now(),
          request: () => {
            const target = new URL(url);
            const body = eventTypes.webhookBody(event);
            const headers = {
              'content-type': 'application/json',
              [EVENT_ID_HEADER]: String(event.id),
              ...signWebhookRequest(target, body, secret, clock.now()),
              // The trace of the request that caused the event (W3C Trace Context), when it was traced.
              ...(claimed.traceParent ? { traceparent: claimed.traceParent } : {}),
            };
            return { url: target, body, headers };
          },
        };
      });
    },
    record: (em: Em, attempts: readonly RecordedAttempt[], outcomes: readonly RecordedOutcome[]) => recordAttempts(em, attempts, outcomes),
  };
}
