import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { PAYMENT_OUTCOME_SQL, type PaymentOutcome } from './payment-outcome.js';
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

/**
 * What became of each payment of a page (`PAYMENT_OUTCOME_SQL`, the one rule the search and the totals use), by its
 * unit's clock (`now`, the same for every key of a unit): one statement per unit of the page.
 */
export const paymentOutcomeByIdLoader = defineLoader(
  'paymentOutcomeByIdLoader',
  (em) =>
    new DataLoader<{ msn: string; id: string; now: Date }, PaymentOutcome, string>(
      async (keys) => {
        const found = new Map<string, PaymentOutcome>();
        for (const msn of new Set(keys.map((k) => k.msn))) {
          const group = keys.filter((k) => k.msn === msn);
          const rows = await em.execute<{ id: string; outcome: PaymentOutcome }[]>(
            `select id, (${PAYMENT_OUTCOME_SQL}) as outcome from payment where msn = ? and id in (${group.map(() => '?').join(', ')})`,
            [group[0]!.now, msn, ...group.map((k) => k.id)],
          );
          for (const row of rows) found.set(`${msn}|${row.id}`, row.outcome);
        }
        return keys.map((k) => found.get(`${k.msn}|${k.id}`) ?? new Error(`payment ${k.id} not found`));
      },
      { cacheKeyFn: (k) => `${k.msn}|${k.id}` },
    ),
);
