import { paymentAttentionResolvers } from '../../resolvers/webhooks-attention.js';
import { webhookResolvers } from '../../resolvers/webhooks.js';
import { webhookActivityResolvers } from '../../resolvers/webhooks-activity.js';
import { paymentAttentionGauge } from '../webhooks/payment-attention.gauge.js';
import { salesUnitNode } from '../platform/auth/tenancy.js';
import type { DomainModule } from '../platform/module.js';
import { findWebhookDelivery } from '../webhooks/webhook-delivery.service.js';
import { webhookDeliveryChannel } from '../webhooks/webhook-delivery.channel.js';
import { Migration20261126170001WebhookDeliveryByReceiver } from '../webhooks/migrations/Migration20261126170001WebhookDeliveryByReceiver.js';
import { Webhook } from '../webhooks/webhook.entity.js';
import { webhookRoutes } from '../webhooks/webhook.routes.js';
import '../webhooks/webhook.errors.js';

/** The Webhooks API: registrations, and their deliveries and attempts in the graph. */
export const webhooksModule: DomainModule = {
  name: 'webhooks',
  entities: [Webhook],
  migrations: [{ name: 'Migration20261126170001WebhookDeliveryByReceiver', class: Migration20261126170001WebhookDeliveryByReceiver }],
  routes: webhookRoutes,
  deliveryChannels: (services) => [webhookDeliveryChannel(services)],
  resolvers: [webhookResolvers, webhookActivityResolvers, paymentAttentionResolvers],
  gauges: (services) => [paymentAttentionGauge(services)],
  nodes: { WebhookDelivery: salesUnitNode((ctx, key) => findWebhookDelivery(ctx, /^\d{1,15}$/.test(key) ? Number(key) : Number.NaN)) },
};
