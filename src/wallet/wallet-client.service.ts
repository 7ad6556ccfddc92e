import type { Services } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { awaitsUser, effectiveState } from '../payments/payment-expiry.js';
import { newerThan, type CreatedKey } from '../platform/paging/keyset.js';
import { timelineFilter } from '../platform/test-clocks.js';
import { Payment } from '../payments/payment.entity.js';
import type { PaymentState } from '../payments/payment.transitions.js';
import { normalizePhoneNumber } from '../user-profiles/phone-number.js';
import { approveOnLanding, rejectOnLanding, type LandingRefusal } from './landing.service.js';

/**
 * The wallet side of a payment, for a wallet app's client acting for its own user: what the app shows (the shop, the
 * amount, what for, what the merchant asks to be shared), never the merchant's reference, order or other data.
 */
export interface WalletPayment {
  token: string;
  shopName: string;
  amount: number;
  currency: string;
  description: string | null;
  state: PaymentState;
  awaitsUser: boolean;
  expiresAt: Date;
  requestedScopes: string[];
  customerPhoneNumber: string | null;
}

/**
 * The payments made for this user's phone number that still wait for them, oldest first: `limit` rows after the
 * (createdAt, id) position `after`. Whether a payment still waits is decided in the query, each unit by its own clock
 * (its test clock where it was moved), so a page is never short of rows that wait.
 */
export async function pendingWalletPayments(
  services: Services,
  em: Em,
  phoneInput: string,
  page: { limit: number; after: CreatedKey | undefined },
): Promise<(WalletPayment & CreatedKey)[]> {
  const phoneNumber = normalizePhoneNumber(phoneInput);
  if (!phoneNumber) return [];
  const notOverdue = services.testClocks.timelines().map((timeline) => ({ ...timelineFilter(timeline), expiresAt: { $gt: timeline.now } }));
  const payments = await em.find(
    Payment,
    { $and: [{ customerPhoneNumber: phoneNumber, state: 'CREATED' }, { $or: notOverdue }, newerThan(page.after)] },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], limit: page.limit },
  );
  const shown = await describeAll(services, em, payments);
  return shown.map((payment, i) => ({ ...payment, createdAt: payments[i]!.createdAt, id: payments[i]!.id }));
}

/** The payment behind a landing token (a scanned QR code or a link), whatever its state. */
export async function walletPaymentByToken(services: Services, em: Em, token: string): Promise<WalletPayment | undefined> {
  const payment = await em.findOne(Payment, { approvalToken: token });
  return payment ? (await describeAll(services, em, [payment]))[0] : undefined;
}

export type WalletOutcome = { ok: true; payment: WalletPayment } | { ok: false; refusal: WalletRefusal; payment?: WalletPayment };
export type WalletRefusal = Exclude<LandingRefusal, 'UNKNOWN_USER' | 'NO_PAGE_APPROVAL_YET' | 'NO_TEST_WALLET'>;

/**
 * The user approves in the app: the one approval of a wallet user (landing.service.ts), acted by the wallet's client.
 * Consent is to every scope the payment asks for, as the app's consent screen asks it.
 */
export async function walletApproves(
  services: Services,
  em: Em,
  input: { phoneNumber: string; token: string; consentedScopes: readonly string[] },
): Promise<WalletOutcome> {
  const requested = await em.findOne(Payment, { approvalToken: input.token }, { fields: ['profileScope'] });
  const consented = scopesOf(requested?.profileScope ?? null).every((scope) => input.consentedScopes.includes(scope));
  const outcome = await approveOnLanding(services, input.token, input.phoneNumber, consented, 'wallet-client');
  return answer(services, em, input.token, outcome);
}

export async function walletRejects(services: Services, em: Em, input: { phoneNumber: string; token: string }): Promise<WalletOutcome> {
  const outcome = await rejectOnLanding(services, input.token, 'wallet-client', input.phoneNumber);
  return answer(services, em, input.token, outcome);
}

async function answer(
  services: Services,
  em: Em,
  token: string,
  outcome: Awaited<ReturnType<typeof approveOnLanding>>,
): Promise<WalletOutcome> {
  // The approval ran in a transaction of its own: read the payment afresh (the scope read above loaded a part of it).
  em.clear();
  const payment = await walletPaymentByToken(services, em, token);
  if (outcome.ok) return { ok: true, payment: payment! };
  // A wallet client's user is made known by its approval, and the client is no test page: only these remain.
  const refusal = outcome.refusal as WalletRefusal;
  return payment ? { ok: false, refusal, payment } : { ok: false, refusal };
}

function scopesOf(profileScope: string | null): string[] {
  return profileScope ? profileScope.split(' ').filter(Boolean) : [];
}

async function describeAll(services: Services, em: Em, payments: readonly Payment[]): Promise<WalletPayment[]> {
  if (payments.length === 0) return [];
  const units = await em.find(SalesUnit, { msn: { $in: [...new Set(payments.map((p) => p.msn))] } }, { fields: ['msn', 'name'] });
  const names = new Map(units.map((u) => [u.msn, u.name]));
  return payments.map((p) => {
    const now = services.testClocks.of(p.msn).now();
    return {
      token: p.approvalToken,
      shopName: names.get(p.msn) ?? p.msn,
      amount: p.amount,
      currency: p.currency,
      description: p.paymentDescription ?? null,
      state: effectiveState(p, now),
      awaitsUser: awaitsUser(p, now),
      expiresAt: p.expiresAt,
      requestedScopes: scopesOf(p.profileScope ?? null),
      customerPhoneNumber: p.customerPhoneNumber ?? null,
    };
  });
}
