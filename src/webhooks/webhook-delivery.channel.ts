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
import {
  claimDeliveries,
  claimedRow,
  leaseLength,
  recordAttempts,
  type DeliveryFamily,
  type ReceiverLimits,
} from '../platform/delivery/delivery-table.js';
import { WEBHOOK_KIND } from '../platform/delivery/delivery.entity.js';
import { afterFailedAttempt } from './webhook-retry.js';
import { webhookRequestHeaders } from '../platform/delivery/webhook-signature.js';

/** Webhook deliveries: one per (registration, event), the registration being the receiver. */
const WEBHOOK_DELIVERIES: DeliveryFamily = {
  due: `d.kind = '${WEBHOOK_KIND}' and d.next_attempt_at <= ?`,
  heldBack: `(${EARLIER_DELIVERY_PENDING} or ${EARLIER_EVENT_UNDISPATCHED})`,
  returning: {
    from: ', webhook w, domain_event e',
    where: ' and w.id = d.webhook_id and e.id = d.event_id',
    // What a body adds at delivery (a payment's profile and shipping) is read here, when the registry is filled.
    get columns() {
      return `w.url, w.secret, ${OUTBOX_EVENT_COLUMNS}, ${eventTypes.deliveryReadColumn()}`;
    },
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
    async claim(em: Em, limit: number, perReceiver: ReceiverLimits, held?: readonly number[]): Promise<ClaimedDelivery[]> {
      const now = clock.now();
      const leaseMs = leaseLength(config, config.webhooks.timeoutMs);
      const leaseUntil = new Date(now.getTime() + leaseMs);
      const rows = await claimDeliveries(em, WEBHOOK_DELIVERIES, { now, dueParams: [now], leaseUntil, limit, perReceiver, held });
      return rows.map((row) => {
        const event = toOutboxEvent(row);
        const claimed = claimedRow(row, leaseUntil, leaseMs);
        const url = row.url as string;
        const secret = row.secret as string;
        const read = typeof row.delivery_read === 'string' ? (JSON.parse(row.delivery_read) as unknown) : row.delivery_read;
        return {
          ...claimed,
          policy,
          now: () => clock.now(),
          request: () => {
            const target = new URL(url);
            const body = eventTypes.webhookBody(event, read ?? undefined);
            const headers = {
              ...webhookRequestHeaders(target, event.id, body, secret, clock.now()),
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
