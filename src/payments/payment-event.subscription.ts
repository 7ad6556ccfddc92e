import { eventStream } from '../platform/events/event-stream.js';
import type { OutboxEvent } from '../platform/events/outbox-event.js';
import type { PaymentEvent, PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentOutboxName, toPaymentEvent } from './payment-event.types.js';
import type { GraphQLContext } from '../platform/graph/graphql-context.js';

/** What `paymentEvents` yields per event; the notification's `payment` is read when (and only if) selected. */
export interface PaymentEventNotificationSource {
  event: PaymentEvent;
}

export interface PaymentEventSubscriptionArgs {
  reference?: string | null;
  names?: readonly PaymentEventName[] | null;
}

/**
 * One PaymentEvent object per outbox event, whichever subscriber maps it: the graph shares one execution per event
 * object among subscribers holding the same operation (graphql-ws.ts), so each must receive the same object.
 */
const mapped = new WeakMap<OutboxEvent, PaymentEvent>();

function sharedPaymentEvent(event: OutboxEvent): PaymentEvent {
  let paymentEvent = mapped.get(event);
  if (!paymentEvent) mapped.set(event, (paymentEvent = toPaymentEvent(event)));
  return paymentEvent;
}

/**
 * The caller's committed payment events from now on. Tenancy is not a filter the client chooses: the stream is
 * bound to the sales unit the connection authenticated for, and the arguments can only narrow it.
 */
export function subscribeToPaymentEvents(context: GraphQLContext, args: PaymentEventSubscriptionArgs): AsyncIterableIterator<PaymentEvent> {
  const reference = args.reference ?? undefined;
  const names = args.names?.length ? new Set(args.names.map(paymentOutboxName)) : undefined;
  return eventStream(context.services.events, {
    filter: { msn: context.request.msn, streamType: PAYMENT_STREAM, names },
    map: sharedPaymentEvent,
    accept: (event) => reference === undefined || event.reference === reference,
  });
}
