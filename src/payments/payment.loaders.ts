import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import type { PaymentEvent } from './payment-event.entity.js';
import { readFirstPaymentEvents, readPaymentsByIds } from './payment.read-model.js';
import type { PaymentFields } from './payment.view.js';

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
        // By page size, then by payment: no composite key made per event read.
        const byLimit = new Map<number, Map<string, PaymentEvent[]>>();
        for (const { paymentId, limit } of keys) {
          let byPayment = byLimit.get(limit);
          if (!byPayment) byLimit.set(limit, (byPayment = new Map()));
          byPayment.set(paymentId, []);
        }
        for (const [limit, byPayment] of byLimit) {
          for (const event of await readFirstPaymentEvents(em, [...byPayment.keys()], limit)) byPayment.get(event.paymentId)!.push(event);
        }
        return keys.map(({ paymentId, limit }) => byLimit.get(limit)!.get(paymentId)!);
      },
      { cacheKeyFn: keyOf },
    ),
);

/** A payment of a sales unit by id (`msn|id`), for a page of things that link to their payment: one statement per page. */
export const paymentFieldsByIdLoader = defineLoader(
  'paymentFieldsByIdLoader',
  (em) =>
    new DataLoader<{ msn: string; id: string }, PaymentFields | null, string>(
      async (keys) => {
        const found = new Map<string, PaymentFields>();
        for (const msn of new Set(keys.map((k) => k.msn))) {
          const ids = keys.filter((k) => k.msn === msn).map((k) => k.id);
          for (const payment of await readPaymentsByIds(em, msn, ids)) found.set(`${msn}|${payment.id}`, payment);
        }
        return keys.map((k) => found.get(`${k.msn}|${k.id}`) ?? null);
      },
      { cacheKeyFn: (k) => `${k.msn}|${k.id}` },
    ),
);
