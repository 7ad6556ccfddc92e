import { webhookResolvers } from '../../resolvers/webhooks.js';
import type { DomainModule } from '../platform/module.js';
import { findWebhookDelivery } from './webhook-delivery.service.js';
import { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from './webhook.entity.js';
import { webhookRoutes } from './webhook.routes.js';
import './webhook.errors.js';

/** The Webhooks API: registrations, and their deliveries and attempts in the graph. */
export const webhooksModule: DomainModule = {
  name: 'webhooks',
  entities: [Webhook, WebhookDelivery, WebhookDeliveryAttempt],
  routes: webhookRoutes,
  resolvers: [webhookResolvers],
  nodes: { WebhookDelivery: (ctx, key) => findWebhookDelivery(ctx, /^\d{1,15}$/.test(key) ? Number(key) : Number.NaN) },
};
