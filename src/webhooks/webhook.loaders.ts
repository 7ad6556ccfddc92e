import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import {
  readAttemptPages,
  readDeliveryPages,
  type AttemptPageRequest,
  type DeliveryPageRequest,
  type WebhookAttemptView,
  type WebhookDeliveryView,
} from './webhook-delivery.service.js';

/** Keyed by registration and page: one statement serves every page of deliveries asked for in one tick. */
export const webhookDeliveriesByWebhookIdLoader = defineLoader(
  'webhookDeliveriesByWebhookIdLoader',
  (em) =>
    new DataLoader<DeliveryPageRequest, WebhookDeliveryView[], string>((pages) => readDeliveryPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.webhookId, page.limit, page.beforeId ?? null, page.statuses ?? null]),
    }),
);

export const webhookAttemptsByDeliveryIdLoader = defineLoader(
  'webhookAttemptsByDeliveryIdLoader',
  (em) =>
    new DataLoader<AttemptPageRequest, WebhookAttemptView[], string>((pages) => readAttemptPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.deliveryId, page.limit, page.afterId ?? null]),
    }),
);
