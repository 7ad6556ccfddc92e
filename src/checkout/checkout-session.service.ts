import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { outboundUrlProblem } from '../platform/delivery/outbound-url.js';
import { newestFirstOrder, olderThan, type CreatedKey } from '../platform/paging/keyset.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import { readPayment } from '../payments/payment.read-model.js';
import { amountTooSmall } from '../payments/payment.rules.js';
import { assertSalesUnitMayOpenSession } from './checkout-sales-unit.rule.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { recordSessionEvent } from './checkout-session.recorder.js';
import { readSessionPayments } from './checkout-session.read-model.js';
import type { CheckoutAmount, CheckoutSessionRequest } from './checkout-session.types.js';
import { sessionLinks, toSessionInfo, type SessionInfo } from './checkout-session.view.js';

/** A session nobody completes expires after one hour (FACTS §8). */
export const CHECKOUT_SESSION_LIFETIME_MS = 60 * 60_000;

export interface CreatedSession {
  token: string;
  checkoutFrontendUrl: string;
  pollingUrl: string;
  session: CheckoutSession;
}

/**
 * Opens a session for the caller's sales unit: an amount its payment could be created with (the payment rules'
 * smallest amount, so the buyer is never shown an order that cannot be paid), the URL policy of outbound calls for
 * the two URLs the service will POST to, the sales unit rule, and a reference the merchant has used for neither a
 * session nor a payment (409).
 */
export async function createCheckoutSession(ctx: SalesUnitContext, request: CheckoutSessionRequest): Promise<CreatedSession> {
  const problems: ErrorDetail[] = [];
  const tooSmall = sessionAmountTooSmall(request.transaction.amount);
  if (tooSmall) problems.push(tooSmall);
  const callbackProblem = await outboundUrlProblem(request.merchantInfo.callbackUrl, ctx.config.env);
  if (callbackProblem) problems.push({ name: 'merchantInfo.callbackUrl', reason: callbackProblem });
  if (request.logistics?.dynamicOptionsCallback !== undefined) {
    const problem = await outboundUrlProblem(request.logistics.dynamicOptionsCallback, ctx.config.env);
    if (problem) problems.push({ name: 'logistics.dynamicOptionsCallback', reason: problem });
  }
  if (problems.length > 0) throw AppError.validation(problems);
  const msn = scoped(ctx).msn;
  const reference = request.transaction.reference;
  const session = await ctx.em.transactional(async (em) => {
    await assertSalesUnitMayOpenSession(em, msn);
    if (await readPayment(em, msn, reference)) throw referenceUsed(reference);
    const now = ctx.clock.now();
    const created = em.create(CheckoutSession, {
      id: randomBytes(16).toString('base64url'),
      msn,
      reference,
      state: 'SessionCreated',
      currency: request.transaction.amount.currency,
      amount: request.transaction.amount.value,
      paymentDescription: request.transaction.paymentDescription,
      request,
      pageToken: randomBytes(32).toString('base64url'),
      clientId: ctx.principal.clientId,
      buyerAddress: null,
      offeredShipping: null,
      paymentId: null,
      paymentMethod: null,
      shippingDetails: null,
      billingDetails: null,
      userInfo: null,
      customConsentProvided: null,
      expiresAt: new Date(now.getTime() + CHECKOUT_SESSION_LIFETIME_MS),
      createdAt: now,
      updatedAt: now,
    });
    recordSessionEvent(em, created, undefined, now);
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException && /checkout_session_reference_unique/.test(error.message)) {
        throw referenceUsed(reference, error);
      }
      throw error;
    }
    return created;
  });
  return { ...sessionLinks(ctx.config, session), session };
}

/** A session's amount (created or updated) that no payment could be created with, named as the session names it. */
export function sessionAmountTooSmall(amount: CheckoutAmount): ErrorDetail | undefined {
  return amountTooSmall(amount, 'transaction.amount.value');
}

function referenceUsed(reference: string, cause?: unknown): AppError {
  return new AppError(
    'CHECKOUT_REFERENCE_ALREADY_USED',
    `The reference ${reference} is already used by a session or payment of this sales unit`,
    [{ name: 'transaction.reference', reason: 'Already used' }],
    cause ? { cause } : undefined,
  );
}

export function sessionNotFound(reference: string): AppError {
  return new AppError('CHECKOUT_SESSION_NOT_FOUND', 'Session expired or not known', [
    { name: 'reference', reason: `No session with reference ${reference}` },
  ]);
}

/** The caller's session by reference, or 404: another sales unit's session is indistinguishable from a missing one. */
export async function findSession(em: Em, msn: string, reference: string): Promise<CheckoutSession | null> {
  return em.findOne(CheckoutSession, { msn, reference });
}

export async function getCheckoutSession(ctx: SalesUnitContext, reference: string): Promise<SessionInfo> {
  const session = await findSession(ctx.em, scoped(ctx).msn, reference);
  if (!session) throw sessionNotFound(reference);
  const [payment] = await readSessionPayments(ctx.em, session.msn, session.paymentId ? [session.paymentId] : []);
  return toSessionInfo(session, payment, ctx.clock.now());
}

/** The caller's sessions, newest first, by keyset (never OFFSET). */
export async function listCheckoutSessions(
  ctx: SalesUnitContext,
  query: { limit: number; before?: CreatedKey },
): Promise<CheckoutSession[]> {
  const where = { msn: scoped(ctx).msn, ...olderThan(query.before) };
  return ctx.em.find(CheckoutSession, where, { orderBy: newestFirstOrder(), limit: query.limit });
}

/** `node(id:)`: the caller's session by its session id; another sales unit's is undefined like a missing one. */
export async function findSessionNode(ctx: SalesUnitContext, id: string): Promise<CheckoutSession | undefined> {
  return (await ctx.em.findOne(CheckoutSession, { id, msn: scoped(ctx).msn })) ?? undefined;
}
