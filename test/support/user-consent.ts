import { newReference, type MerchantClient } from './merchant-client.js';

/** The test users' profiles (TEST-ENVIRONMENT.md), as the userinfo API shows them. */
export const KARI = { phoneNumber: '4791234567', sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944' };
export const OLA = { phoneNumber: '4798765432', sub: '5b1f6a7e-3f0c-4d0e-8a52-3c3b8f0d9e21' };

export interface ConsentedApproval {
  reference: string;
  /** The payment's `profile.sub` once approved. */
  sub: string;
  /** The user's access token the landing page put in the link back to the merchant's `returnUrl`. */
  userToken: string | undefined;
  /** The approval page's HTML. */
  page: string;
  /** The payment's landing page (its redirectUrl). */
  landingUrl: string;
}

/**
 * A payment of `client`'s sales unit asking for `scope`, approved on the landing page by a test user who ticks the
 * consent box, as a person does in the browser (a form post without credentials).
 */
export async function approveWithConsent(
  client: MerchantClient,
  scope: string,
  options: { phoneNumber?: string; consent?: boolean; returnUrl?: string } = {},
): Promise<ConsentedApproval> {
  const reference = newReference('consent');
  const created = await client.createPayment({
    reference,
    profile: { scope },
    returnUrl: options.returnUrl ?? 'https://shop.example/return?order=1',
  });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
  const token = new URL(created.body.redirectUrl).searchParams.get('token')!;
  const form: Record<string, string> = { phoneNumber: options.phoneNumber ?? KARI.phoneNumber };
  if (options.consent !== false) form.consent = 'yes';
  const res = await fetch(`${client.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const page = await res.text();
  const payment = await client.getPayment(reference);
  return { reference, sub: payment.body.profile?.sub, userToken: userTokenOf(page), page, landingUrl: created.body.redirectUrl };
}

/**
 * The landing page's form of the payment whose `redirectUrl` this is, sent as the page sends it (same-origin, no
 * credentials): `form` is what the user filled in (phone number, consent, and for Express the address and option).
 */
export function submitLandingForm(baseUrl: string, redirectUrl: string, form: Record<string, string>): Promise<Response> {
  const token = new URL(redirectUrl).searchParams.get('token')!;
  return fetch(`${baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: baseUrl },
    body: new URLSearchParams(form).toString(),
  });
}

/** The `access_token` in the fragment of the page's "Back to …" link, if any. */
export function userTokenOf(page: string): string | undefined {
  const href = /<p class="back"[^>]*><a href="([^"]+)"/.exec(page)?.[1];
  if (!href) return undefined;
  const fragment = href.replace(/&amp;/g, '&').split('#')[1];
  return fragment ? (new URLSearchParams(fragment).get('access_token') ?? undefined) : undefined;
}
