import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import type { PaymentEvent } from './payment-event.entity.js';
import { readFirstPaymentEvents } from './payment.read-model.js';

export interface FirstEventsKey {
  paymentId: string;
  /** Events wanted from the start of the payment's log (a page size plus one). */
  limit: number;
}

const keyOf = (key: FirstEventsKey): string => `${key.paymentId}|${key.limit}`;

/**
 * The first page of events of every payment on a page of payments, in one statement per distinct page size: in
 * practice one, as a query asks the same `first` of every payment.
 */
export const firstPaymentEventsByPaymentIdLoader = defineLoader(
  'firstPaymentEventsByPaymentIdLoader',
  (em) =>
    new DataLoader<FirstEventsKey, PaymentEvent[], string>(
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
);
