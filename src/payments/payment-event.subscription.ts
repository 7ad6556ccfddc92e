import { eventStream } from '../platform/events/event-stream.js';
import type { OutboxEvent } from '../platform/events/outbox-event.js';
import type { PaymentEvent, PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentOutboxName, toPaymentEvent } from './payment-event.types.js';
import type { GraphQLContext } from '../platform/graph/graphql-context.js';
import { scoped } from '../platform/auth/tenancy.js';
import { GraphQLError } from 'graphql';
import { MAX_REPLAYED, resumedStream } from '../platform/events/resumed-stream.js';
import { readPaymentEventsAfter } from './payment-activity.queries.js';

/** What `paymentEvents` yields per event; the notification's `payment` is read when (and only if) selected. */
export interface PaymentEventNotificationSource {
  event: PaymentEvent;
}

export interface PaymentEventSubscriptionArgs {
  reference?: string | null;
  names?: readonly PaymentEventName[] | null;
  /** An event id (PaymentEvent.eventId): replay what came after it, then go live. */
  after?: string | null;
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
  const after = args.after == null ? undefined : eventIdOf(args.after);
  const msn = scoped(context.request).msn;
  const live = eventStream(context.services.events, {
    filter: { msn, streamType: PAYMENT_STREAM, names },
    map: sharedPaymentEvent,
    accept: (event) => reference === undefined || event.reference === reference,
  });
  if (after === undefined) return live;
  const past = () =>
    readPaymentEventsAfter(context.request.em, { msn, after, reference, names: args.names ?? undefined, limit: MAX_REPLAYED + 1 });
  return resumedStream(live, past, (event) => event.id, after);
}

/** An event id as the webhook header, PaymentEvent.eventId and WebhookDelivery.eventId give it: a decimal integer. */
function eventIdOf(id: string): number {
  if (!/^\d{1,15}$/.test(id))
    throw new GraphQLError('after is not an event id', { extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
  return Number(id);
}
