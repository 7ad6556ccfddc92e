import type { Resolvers, WebhookErrorCode } from '../src/generated/graphql.js';
import { connectionFrom, encodeCursor, idCursor, pageSize, toGlobalId, fromGlobalId } from '../src/platform/graph/relay.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { listWebhookDeliveries, redeliverWebhookDelivery } from '../src/webhooks/webhook-delivery.service.js';
import { webhookAttemptsByDeliveryIdLoader, webhookDeliveriesByWebhookIdLoader } from '../src/webhooks/webhook.loaders.js';
import { deleteWebhook, listWebhooks, parseWebhookRegistration, registerWebhook } from '../src/webhooks/webhook.service.js';

const WEBHOOK_ERROR_CODES = userErrorCodes<WebhookErrorCode>({
  VALIDATION_FAILED: true,
  WEBHOOK_NOT_FOUND: true,
  WEBHOOK_LIMIT_REACHED: true,
  WEBHOOK_DELIVERY_NOT_FOUND: true,
  WEBHOOK_DELIVERY_ALREADY_DELIVERED: true,
});

const DELIVERY_STATUS = { pending: 'PENDING', delivered: 'DELIVERED', failed: 'FAILED' } as const;
const ATTEMPT_STATE = { in_flight: 'IN_FLIGHT', completed: 'COMPLETED', interrupted: 'INTERRUPTED' } as const;

/** A delivery id from the graph; anything else is a delivery nobody has (the service reports it). */
export function deliveryKey(id: string): number {
  const global = fromGlobalId(id);
  return global?.type === 'WebhookDelivery' && /^\d+$/.test(global.key) ? Number(global.key) : Number.NaN;
}

/** Deliveries and attempts are both ordered by id, so their cursors carry it. */
const idAfter = (after: string | null | undefined): number | undefined => (after ? idCursor(after) : undefined);

const cursorOf = (row: { id: number }) => encodeCursor([row.id]);

export const webhookResolvers: Resolvers = {
  Query: {
    webhooks: (_, __, { request }) => listWebhooks(request),
    webhookDeliveries: async (_, { webhookId, first, after }, { request }) => {
      const size = pageSize(first, 20);
      const rows = await listWebhookDeliveries(request, webhookId, { limit: size + 1, beforeId: idAfter(after) });
      return rows ? connectionFrom(rows, size, cursorOf, Boolean(after)) : null;
    },
  },
  Webhook: {
    createdAt: (w) => w.createdAt.toISOString(),
    // The registration came from a read scoped to the caller's sales unit, so its deliveries are the caller's.
    deliveries: async (w, { first, after }, { request }) => {
      const size = pageSize(first, 20);
      const rows = await request.loaders.get(webhookDeliveriesByWebhookIdLoader).load({
        webhookId: w.id,
        limit: size + 1,
        beforeId: idAfter(after),
      });
      return connectionFrom(rows, size, cursorOf, Boolean(after));
    },
  },
  WebhookDelivery: {
    id: (d) => toGlobalId('WebhookDelivery', d.id),
    eventId: (d) => String(d.eventId),
    status: (d) => DELIVERY_STATUS[d.status],
    nextAttemptAt: (d) => d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: (d) => d.deliveredAt?.toISOString() ?? null,
    createdAt: (d) => d.createdAt.toISOString(),
    attempts: async (d, { first, after }, { request }) => {
      const size = pageSize(first, 20);
      const rows = await request.loaders.get(webhookAttemptsByDeliveryIdLoader).load({
        deliveryId: d.id,
        limit: size + 1,
        afterId: idAfter(after),
      });
      return connectionFrom(rows, size, cursorOf, Boolean(after));
    },
  },
  WebhookDeliveryAttempt: {
    attemptedAt: (a) => a.attemptedAt.toISOString(),
    state: (a) => ATTEMPT_STATE[a.state],
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
    redeliverWebhookDelivery: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => ({
        delivery: await redeliverWebhookDelivery(request, deliveryKey(input.deliveryId)),
      })),
  },
};
