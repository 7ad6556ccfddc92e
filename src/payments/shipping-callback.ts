import type { Config } from '../config.js';
import { postOutboundForBody } from '../platform/delivery/outbound-post.js';

/**
 * The merchant's shipping callback, one mechanism for checkout's dynamic shipping (spec 2, FACTS §8) and Express in
 * ePayment (FACTS §14.1): their bodies differ, the call does not. The user waits on it, so it is a direct POST through
 * the outbound URL policy (`postOutboundForBody`), never the delivery queue, and holds no database transaction. The
 * merchant must answer within `config.shippingCallbackTimeoutMs` (`PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS`, 8 s as the
 * platform's checkout) with at most `maxResponseBytes`, a larger answer refused unread. `maxCallsPerPayment` bounds
 * how often one payment's user may ask (each new address asks again).
 */
export const shippingCallbackSettings = { maxResponseBytes: 256 * 1024, maxCallsPerPayment: 20 };

/** What the merchant answered: its JSON, or why there is none (a non-2xx answer, a timeout, a body that is not JSON). */
export type ShippingCallbackAnswer = { ok: true; json: unknown } | { ok: false; reason: string };

export async function askShippingCallback(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  config: Pick<Config, 'env' | 'shippingCallbackTimeoutMs'>,
): Promise<ShippingCallbackAnswer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  const outcome = await postOutboundForBody(
    target,
    JSON.stringify(body),
    { 'content-type': 'application/json', accept: 'application/json', ...headers },
    { timeoutMs: config.shippingCallbackTimeoutMs, env: config.env, maxBytes: shippingCallbackSettings.maxResponseBytes },
  );
  if ('error' in outcome) return { ok: false, reason: outcome.error };
  if (outcome.statusCode < 200 || outcome.statusCode >= 300) return { ok: false, reason: `status ${outcome.statusCode}` };
  try {
    return { ok: true, json: JSON.parse(outcome.body) as unknown };
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
}

/**
 * Counts the calls of each payment (or session) within this process, at most `maxCallsPerPayment`: the bound is on a
 * user clicking through addresses, which happens on one instance's pages. Oldest entries leave first past 10 000.
 */
const callsOf = new Map<string, number>();

/** Whether one more call for this payment is allowed; counts it when it is. */
export function mayCallShipping(paymentId: string): boolean {
  const calls = callsOf.get(paymentId) ?? 0;
  if (calls >= shippingCallbackSettings.maxCallsPerPayment) return false;
  callsOf.delete(paymentId);
  callsOf.set(paymentId, calls + 1);
  if (callsOf.size > 10_000) callsOf.delete(callsOf.keys().next().value!);
  return true;
}
