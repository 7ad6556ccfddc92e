import { scoped } from '../platform/auth/tenancy.js';
import { eventStream, keyedByEvent } from '../platform/events/event-stream.js';
import type { SalesUnitGraphQLContext } from '../platform/graph/graphql-context.js';
import { AppError } from '../platform/errors/app-error.js';
import { PSP_PAYMENT_STREAM } from './psp-payment.events.js';
import type { PspPaymentChangeSource } from './psp-payment.queries.js';

/**
 * The PSP's committed PSP payment changes of the connection's sales unit from now on. Only a PSP may subscribe; the
 * stream is bound to its sales unit, and the argument only narrows it.
 */
export function subscribeToPspPaymentChanges(
  context: SalesUnitGraphQLContext,
  args: { pspTransactionId?: string | null },
): AsyncIterableIterator<PspPaymentChangeSource> {
  if (context.request.principal.kind !== 'psp') {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'Only a PSP may subscribe to PSP payment changes');
  }
  const wanted = args.pspTransactionId ?? undefined;
  const changes = eventStream(context.services.events, {
    filter: { msn: scoped(context.request).msn, streamType: PSP_PAYMENT_STREAM },
    map: (event) => ({ event }),
    accept: ({ event }) => wanted === undefined || event.payload.pspTransactionId === wanted,
  });
  // Each subscriber's stream makes its own object per event: the event's id is what its PSP's subscribers share.
  return keyedByEvent(changes, ({ event }) => event.id);
}
