import { webhookResolvers } from '../../resolvers/webhooks.js';
import type { DomainModule } from '../platform/module.js';
import { findWebhookDelivery } from '../webhooks/webhook-delivery.service.js';
import { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from '../webhooks/webhook.entity.js';
import { webhookRoutes } from '../webhooks/webhook.routes.js';
import '../webhooks/webhook.errors.js';

/** The Webhooks API: registrations, and their deliveries and attempts in the graph. */
export const webhooksModule: DomainModule = {
  name: 'webhooks',
  entities: [Webhook, WebhookDelivery, WebhookDeliveryAttempt],
  routes: webhookRoutes,
  resolvers: [webhookResolvers],
  nodes: { WebhookDelivery: (ctx, key) => findWebhookDelivery(ctx, /^\d{1,15}$/.test(key) ? Number(key) : Number.NaN) },
};
