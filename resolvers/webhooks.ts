import type { Resolvers, WebhookDelivery, WebhookErrorCode } from '../src/generated/graphql.js';
import { connectionFrom, decodeCursor, encodeCursor, invalidCursor, pageSize, toGlobalId, fromGlobalId } from '../src/graphql/relay.js';
import { withUserErrors } from '../src/graphql/user-errors.js';
import { listWebhookDeliveries, redeliverWebhookDelivery, type WebhookDeliveryView } from '../src/webhooks/webhook-delivery.service.js';
import type { Webhook } from '../src/webhooks/webhook.entity.js';
import { deleteWebhook, listWebhooks, parseWebhookRegistration, registerWebhook } from '../src/webhooks/webhook.service.js';

const WEBHOOK_ERROR_CODES: readonly WebhookErrorCode[] = [
  'VALIDATION_FAILED',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_LIMIT_REACHED',
  'WEBHOOK_DELIVERY_NOT_FOUND',
  'WEBHOOK_DELIVERY_ALREADY_DELIVERED',
];

const webhook = (w: Webhook) => ({ id: w.id, url: w.url, events: w.events, createdAt: w.createdAt.toISOString() });

function delivery(d: WebhookDeliveryView): WebhookDelivery {
  return {
    id: toGlobalId('WebhookDelivery', d.id),
    eventId: String(d.eventId),
    eventName: d.eventName,
    reference: d.reference,
    status: d.status === 'pending' ? 'PENDING' : d.status === 'delivered' ? 'DELIVERED' : 'FAILED',
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    lastStatusCode: d.lastStatusCode,
    createdAt: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({ ...a, attemptedAt: a.attemptedAt.toISOString() })),
  };
}

/** A delivery id from the graph; anything else is a delivery nobody has (the service reports it). */
function deliveryKey(id: string): number {
  const global = fromGlobalId(id);
  return global?.type === 'WebhookDelivery' && /^\d+$/.test(global.key) ? Number(global.key) : Number.NaN;
}

export const webhookResolvers: Resolvers = {
  Query: {
    webhooks: async (_, __, { request }) => (await listWebhooks(request)).map(webhook),
    webhookDeliveries: async (_, { webhookId, first, after }, { request }) => {
      const size = pageSize(first, 20);
      const beforeId = after === null || after === undefined ? undefined : Number(decodeCursor(after)[0]);
      if (beforeId !== undefined && !Number.isSafeInteger(beforeId)) throw invalidCursor();
      const rows = await listWebhookDeliveries(request, webhookId, { limit: size + 1, beforeId });
      if (!rows) return null;
      const page = connectionFrom(rows, size, (d) => encodeCursor([d.id]), Boolean(after));
      return { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: delivery(edge.node) })) };
    },
  },
  Mutation: {
    registerWebhook: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => {
        const registration = await parseWebhookRegistration(input, request.config.env);
        const registered = await registerWebhook(request, registration);
        return { webhook: webhook(registered.webhook), secret: registered.secret };
      }),
    deleteWebhook: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => {
        await deleteWebhook(request, input.id);
        return { deletedWebhookId: input.id };
      }),
    redeliverWebhookDelivery: (_, { input }, { request }) =>
      withUserErrors(WEBHOOK_ERROR_CODES, async () => ({
        delivery: delivery(await redeliverWebhookDelivery(request, deliveryKey(input.deliveryId))),
      })),
  },
};
