import type { Resolvers, WebhookErrorCode } from '../src/generated/graphql.js';
import { cursorsOf, idKeyset, keysetPage, toGlobalId, fromGlobalId } from '../src/platform/graph/relay.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { paymentEventNameOf } from '../src/payments/payment-event.types.js';
import {
  listWebhookDeliveries,
  redeliverFailedWebhookDeliveries,
  redeliverWebhookDelivery,
} from '../src/webhooks/webhook-delivery.service.js';
import { webhookAttemptsByDeliveryIdLoader, webhookDeliveriesByWebhookIdLoader } from '../src/webhooks/webhook.loaders.js';
import { deleteWebhook, listWebhooks, registerWebhook } from '../src/webhooks/webhook.service.js';
import { parseWebhookRegistration } from '../src/webhooks/webhook.rules.js';

const WEBHOOK_ERROR_CODES = userErrorCodes<WebhookErrorCode>({
  VALIDATION_FAILED: true,
  WEBHOOK_NOT_FOUND: true,
  WEBHOOK_LIMIT_REACHED: true,
  WEBHOOK_DELIVERY_NOT_FOUND: true,
  WEBHOOK_DELIVERY_ALREADY_DELIVERED: true,
});

const DELIVERY_STATUS = { pending: 'PENDING', delivered: 'DELIVERED', failed: 'FAILED' } as const;
const ATTEMPT_STATE = { in_flight: 'IN_FLIGHT', completed: 'COMPLETED', interrupted: 'INTERRUPTED' } as const;
const STORED_STATUS = { PENDING: 'pending', DELIVERED: 'delivered', FAILED: 'failed' } as const;
const storedStatuses = (status: readonly (keyof typeof STORED_STATUS)[] | null | undefined) =>
  status?.length ? status.map((s) => STORED_STATUS[s]) : undefined;
/** The status filter a cursor is bound to: a cursor of one filter is refused by another. */
const statusFilter = (status: readonly string[] | null | undefined) => ({ status: status?.length ? [...status].sort() : null });

/** A delivery id from the graph; anything else is a delivery nobody has (the service reports it). */
export function deliveryKey(id: string): number {
  const global = fromGlobalId(id);
  return global?.type === 'WebhookDelivery' && /^\d+$/.test(global.key) ? Number(global.key) : Number.NaN;
}

export const webhookResolvers: Resolvers = {
  Query: {
    webhooks: (_, __, { request }) => listWebhooks(request),
    webhookDeliveries: async (_, { webhookId, first, after, status }, { request }) => {
      // Deliveries and attempts are both ordered by id, so their cursors carry it.
      const page = keysetPage(
        { first, after },
        idKeyset,
        20,
        cursorsOf('Query.webhookDeliveries', request, { filter: statusFilter(status), parent: webhookId }),
      );
      const rows = await listWebhookDeliveries(request, webhookId, {
        limit: page.limit,
        beforeId: page.after,
        statuses: storedStatuses(status),
      });
      return rows ? page.connection(rows) : null;
    },
  },
  Webhook: {
    createdAt: (w) => w.createdAt.toISOString(),
    // The registration came from a read scoped to the caller's sales unit, so its deliveries are the caller's.
    deliveries: async (w, { first, after, status }, { request }) => {
      const page = keysetPage(
        { first, after },
        idKeyset,
        20,
        cursorsOf('Webhook.deliveries', request, { filter: statusFilter(status), parent: w.id }),
      );
      const rows = await request.loaders.get(webhookDeliveriesByWebhookIdLoader).load({
        webhookId: w.id,
        limit: page.limit,
        beforeId: page.after,
        statuses: storedStatuses(status),
      });
      return page.connection(rows);
    },
  },
  WebhookDelivery: {
    id: (d) => toGlobalId('WebhookDelivery', d.id),
    eventId: (d) => String(d.eventId),
    eventType: (d) => d.eventName,
    // Only a payment event has an ePayment name; any other event type is told by eventType.
    eventName: (d) => paymentEventNameOf(d.eventName) ?? null,
    status: (d) => DELIVERY_STATUS[d.status],
    nextAttemptAt: (d) => d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: (d) => d.deliveredAt?.toISOString() ?? null,
    createdAt: (d) => d.createdAt.toISOString(),
    attempts: async (d, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 20, cursorsOf('WebhookDelivery.attempts', request, { parent: d.id }));
      const rows = await request.loaders.get(webhookAttemptsByDeliveryIdLoader).load({
        deliveryId: d.id,
        limit: page.limit,
        afterId: page.after,
      });
      return page.connection(rows);
    },
  },
  WebhookDeliveryAttempt: {
    attemptedAt: (a) => a.attemptedAt.toISOString(),
    state: (a) => ATTEMPT_STATE[a.state],
    outcome: (a) =>
      a.state === 'in_flight'
        ? 'IN_FLIGHT'
        : a.state === 'interrupted'
          ? 'INTERRUPTED'
          : a.statusCode !== null && a.statusCode >= 200 && a.statusCode <= 299
            ? 'SUCCEEDED'
            : 'FAILED',
  },
  Mutation: {
    registerWebhook: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => {
        const registration = await parseWebhookRegistration(input, request.config.env);
        const registered = await registerWebhook(request, registration);
        return { webhook: registered.webhook, secret: registered.secret };
      }),
    deleteWebhook: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => {
        await deleteWebhook(request, input.id);
        return { deletedWebhookId: input.id };
      }),
    redeliverWebhookDelivery: (_, { input }, { request, services }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => ({
        delivery: await redeliverWebhookDelivery(request, deliveryKey(input.deliveryId), services.clock),
      })),
    redeliverFailedWebhookDeliveries: (_, { input }, { request, services }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => ({
        redelivered: await redeliverFailedWebhookDeliveries(request, input.webhookId, services.clock),
      })),
  },
};
