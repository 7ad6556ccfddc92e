import { eventStream, keyedByEvent } from '../platform/events/event-stream.js';
import type { PaymentEvent, PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentOutboxName, toPaymentEvent } from './payment-event.types.js';
import type { SalesUnitGraphQLContext } from '../platform/graph/graphql-context.js';
import { scoped } from '../platform/auth/tenancy.js';
import { resumedStream, resumePosition } from '../platform/events/resumed-stream.js';

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
 * The caller's committed payment events from now on. Tenancy is not a filter the client chooses: the stream is
 * bound to the sales unit the connection authenticated for, and the arguments can only narrow it.
 */
export async function subscribeToPaymentEvents(
  context: SalesUnitGraphQLContext,
  args: PaymentEventSubscriptionArgs,
): Promise<AsyncIterableIterator<PaymentEvent>> {
  const reference = args.reference ?? undefined;
  const names = args.names?.length ? new Set(args.names.map(paymentOutboxName)) : undefined;
  const msn = scoped(context.request).msn;
  const options = {
    filter: { msn, streamType: PAYMENT_STREAM, names },
    map: toPaymentEvent,
    accept: (event: PaymentEvent) => reference === undefined || event.reference === reference,
  };
  // Subscribers holding the same operation share each event's execution, by the event's id (subscription-sharing.ts).
  if (args.after == null) return keyedByEvent(eventStream(context.services.events, options), idOf);
  const position = await resumePosition(context.request.em, msn, args.after);
  return keyedByEvent(resumedStream(context.services.events, context.request.em, options, position), idOf);
}

const idOf = (event: PaymentEvent): number => event.id;
