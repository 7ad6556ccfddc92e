import type { Config } from '../config.js';
import { askShippingCallback } from '../payments/shipping-callback.js';
import { parseDynamicOptions } from './checkout-session.schemas.js';
import type { CheckoutSessionRequest, LogisticsOption, OfferedShipping, SessionAddress } from './checkout-session.types.js';
import type { CheckoutSession } from './checkout-session.entity.js';

/*
 * Dynamic shipping (spec 2 "Dynamic shipping rules", FACTS §8): the shipping callback shared with Express
 * (shipping-callback.ts), which must answer within `PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS` (8 s).
 */

/** Whether the session asks for shipping at all: a callback or fixed options, and the address fields to ship to. */
export function asksForShipping(request: CheckoutSessionRequest): boolean {
  if ((request.configuration?.elements ?? 'Full') !== 'Full') return false;
  return Boolean(request.logistics?.dynamicOptionsCallback) || (request.logistics?.fixedOptions?.length ?? 0) > 0;
}

export function byPriority(options: readonly LogisticsOption[]): LogisticsOption[] {
  return [...options].sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id));
}

/** The fixed options alone (no address needed to offer them). */
export function fixedOffer(request: CheckoutSessionRequest): OfferedShipping {
  const fixed = request.logistics?.fixedOptions ?? [];
  return { source: fixed.length ? 'fixed' : 'none', options: byPriority(fixed) };
}

/** The options the buyer's page offers now: those stored for the buyer's address, else the fixed ones when no callback needs an address; null: enter an address first. */
export function offerShown(session: Pick<CheckoutSession, 'request' | 'offeredShipping'>): OfferedShipping | null {
  if (!asksForShipping(session.request)) return null;
  return session.offeredShipping ?? (session.request.logistics?.dynamicOptionsCallback ? null : fixedOffer(session.request));
}

/** The option the page selects: the buyer's choice, else the merchant's default, else the first. */
export function selectedOption(offer: OfferedShipping | null, chosenId?: string): LogisticsOption | undefined {
  const options = offer?.options ?? [];
  return options.find((o) => o.id === chosenId) ?? options.find((o) => o.isDefault) ?? options[0];
}

/**
 * What the buyer is offered for an address: the merchant's dynamic options when its callback answers in time with
 * a valid, non-empty list (they win over fixed ones); otherwise the fixed options; otherwise none (the buyer cannot
 * pay). The POST goes through the outbound URL policy and holds no database transaction.
 */
export async function shippingOffer(
  request: CheckoutSessionRequest,
  address: SessionAddress,
  config: Pick<Config, 'env' | 'shippingCallbackTimeoutMs'>,
): Promise<OfferedShipping> {
  const callback = request.logistics?.dynamicOptionsCallback;
  if (callback) {
    const answer = await askShippingCallback(
      callback,
      { streetAddress: address.streetAddress, postalCode: address.postalCode, region: address.region, country: address.country },
      {},
      config,
    );
    if (answer.ok) {
      const options = parseDynamicOptions(answer.json, request.transaction.amount.currency);
      if (options?.length) return { source: 'dynamic', options: byPriority(options) };
    }
  }
  return fixedOffer(request);
}
