import DataLoader from 'dataloader';
import type { Em } from '../db/orm.js';
import type { PaymentEvent } from '../payments/payment-event.entity.js';
import { readPaymentEvents } from '../payments/payment.read-model.js';

/** Per-request batching, so a page of payments with their events costs a constant number of statements. */
export interface Loaders {
  paymentEventsByPaymentIdLoader: DataLoader<string, PaymentEvent[]>;
}

export function createLoaders(em: Em): Loaders {
  return {
    paymentEventsByPaymentIdLoader: new DataLoader(async (paymentIds) => {
      const events = await readPaymentEvents(em, paymentIds);
      const byPayment = new Map<string, PaymentEvent[]>(paymentIds.map((id) => [id, []]));
      for (const event of events) byPayment.get(event.paymentId)!.push(event);
      return paymentIds.map((id) => byPayment.get(id)!);
    }),
  };
}
