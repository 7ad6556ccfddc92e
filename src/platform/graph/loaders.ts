import DataLoader from 'dataloader';
import type { Em } from '../db/orm.js';
import type { PaymentEvent } from '../../payments/payment-event.entity.js';
import { readFirstPaymentEvents } from '../../payments/payment.read-model.js';
import {
  readAttemptPages,
  readDeliveryPages,
  type AttemptPageRequest,
  type DeliveryPageRequest,
  type WebhookAttemptView,
  type WebhookDeliveryView,
} from '../../webhooks/webhook-delivery.service.js';

export interface FirstEventsKey {
  paymentId: string;
  /** Events wanted from the start of the payment's log (a page size plus one). */
  limit: number;
}

/**
 * Per-request batching, so a page of payments with their events, or of registrations with their deliveries and
 * those deliveries' attempts, costs a constant number of statements.
 */
export interface Loaders {
  firstPaymentEventsByPaymentIdLoader: DataLoader<FirstEventsKey, PaymentEvent[], string>;
  /** Keyed by registration and page: one statement serves every page asked for in one tick. */
  webhookDeliveriesByWebhookIdLoader: DataLoader<DeliveryPageRequest, WebhookDeliveryView[], string>;
  webhookAttemptsByDeliveryIdLoader: DataLoader<AttemptPageRequest, WebhookAttemptView[], string>;
}

export function createLoaders(em: Em): Loaders {
  return {
    // One statement per distinct page size in the batch: in practice one, as a query asks the same `first` of every payment.
    firstPaymentEventsByPaymentIdLoader: new DataLoader(
      async (keys) => {
        const byPaymentAndLimit = new Map<string, PaymentEvent[]>(keys.map((k) => [keyOf(k), []]));
        for (const limit of new Set(keys.map((k) => k.limit))) {
          const ids = keys.filter((k) => k.limit === limit).map((k) => k.paymentId);
          for (const event of await readFirstPaymentEvents(em, ids, limit)) {
            byPaymentAndLimit.get(keyOf({ paymentId: event.paymentId, limit }))!.push(event);
          }
        }
        return keys.map((k) => byPaymentAndLimit.get(keyOf(k))!);
      },
      { cacheKeyFn: keyOf },
    ),
    webhookDeliveriesByWebhookIdLoader: new DataLoader((pages) => readDeliveryPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.webhookId, page.limit, page.beforeId ?? null]),
    }),
    webhookAttemptsByDeliveryIdLoader: new DataLoader((pages) => readAttemptPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.deliveryId, page.limit, page.afterId ?? null]),
    }),
  };
}

function keyOf(key: FirstEventsKey): string {
  return `${key.paymentId}|${key.limit}`;
}
