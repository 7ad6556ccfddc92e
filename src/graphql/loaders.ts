import DataLoader from 'dataloader';
import type { Em } from '../db/orm.js';
import type { PaymentEvent } from '../payments/payment-event.entity.js';
import { readPaymentEvents } from '../payments/payment.read-model.js';
import {
  readAttemptPages,
  readDeliveryPages,
  type AttemptPageRequest,
  type DeliveryPageRequest,
  type WebhookAttemptView,
  type WebhookDeliveryView,
} from '../webhooks/webhook-delivery.service.js';

/**
 * Per-request batching, so a page of payments with their events, or of registrations with their deliveries and
 * those deliveries' attempts, costs a constant number of statements.
 */
export interface Loaders {
  paymentEventsByPaymentIdLoader: DataLoader<string, PaymentEvent[]>;
  /** Keyed by registration and page: one statement serves every page asked for in one tick. */
  webhookDeliveriesByWebhookIdLoader: DataLoader<DeliveryPageRequest, WebhookDeliveryView[], string>;
  webhookAttemptsByDeliveryIdLoader: DataLoader<AttemptPageRequest, WebhookAttemptView[], string>;
}

export function createLoaders(em: Em): Loaders {
  return {
    paymentEventsByPaymentIdLoader: new DataLoader(async (paymentIds) => {
      const events = await readPaymentEvents(em, paymentIds);
      const byPayment = new Map<string, PaymentEvent[]>(paymentIds.map((id) => [id, []]));
      for (const event of events) byPayment.get(event.paymentId)!.push(event);
      return paymentIds.map((id) => byPayment.get(id)!);
    }),
    webhookDeliveriesByWebhookIdLoader: new DataLoader((pages) => readDeliveryPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.webhookId, page.limit, page.beforeId ?? null]),
    }),
    webhookAttemptsByDeliveryIdLoader: new DataLoader((pages) => readAttemptPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.deliveryId, page.limit, page.afterId ?? null]),
    }),
  };
}
