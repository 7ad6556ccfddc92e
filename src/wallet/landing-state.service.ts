import type { Services } from '../platform/context.js';
import { PAYMENT_STREAM } from '../payments/payment-event.types.js';
import { findLandingPayment, findLandingPaymentStream } from './landing.service.js';

export interface LandingState {
  state: string;
  awaitsUser: boolean;
}

/** How long one request waits for a change before answering with the state unchanged (the page then asks again). */
export const LANDING_STATE_WAIT_MS = 25_000;

/**
 * The state of the payment behind a landing token as soon as it differs from `known`: at once when it already does,
 * else when one of the payment's events commits (from the event bus, no polling), or unchanged after `waitMs`.
 * Undefined for an unknown token, or when `signal` aborts (the client went away).
 */
export async function waitForLandingState(
  services: Services,
  token: string,
  known: string,
  options: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<LandingState | undefined> {
  const { waitMs = LANDING_STATE_WAIT_MS, signal } = options;
  const stream = await findLandingPaymentStream(services, token);
  if (!stream) return undefined;
  let wake: () => void = () => undefined;
  const changed = new Promise<void>((resolve) => (wake = resolve));
  // Subscribed before the state is read, so an event committing in between is not missed.
  const unsubscribe = services.events.subscribe({ msn: stream.msn, streamType: PAYMENT_STREAM }, (event) => {
    if (event.streamId === stream.paymentId) wake();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const current = await findLandingPayment(services, token);
    if (!current) return undefined;
    if (current.state !== known) return { state: current.state, awaitsUser: current.awaitsUser };
    signal?.addEventListener('abort', () => wake(), { once: true });
    await Promise.race([changed, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    // Nobody is waiting for the answer any more (the page left, or the server is closing).
    if (signal?.aborted) return undefined;
    const after = await findLandingPayment(services, token);
    return after ? { state: after.state, awaitsUser: after.awaitsUser } : undefined;
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}
