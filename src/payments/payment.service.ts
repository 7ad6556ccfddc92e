import { randomBytes } from 'node:crypto';
import type { SalesUnitContext } from '../platform/context.js';
import { runOperation } from '../platform/db/run-operation.js';
import { paymentCreation, type NewPayment } from './payment-creation.statement.js';
import type { CreatePaymentCommand } from './payment.commands.js';
import { paymentNotFound } from './payment-for-verb.js';
import type { PaymentEvent } from './payment-event.entity.js';
import { Payment } from './payment.entity.js';
import { readPayment, readPaymentEvents } from './payment.read-model.js';
import { toPaymentView, toPaymentViewAt, type PaymentView } from './payment.view.js';
import { newPspReference } from './psp-reference.js';
import { refuseCreatePayment } from './payment.rules.js';
import { refuseExpress, refuseExpressCallbackUrl } from './express.rules.js';
import { scoped } from '../platform/auth/tenancy.js';
import { timeOrderedId } from '../platform/db/time-ordered-id.js';

/** A payment nobody acts on expires after 10 minutes (FACTS §1.7). */
export const DEFAULT_PAYMENT_LIFETIME_MS = 10 * 60_000;

/**
 * Creates a payment for whoever asks (REST, the graph, a checkout the buyer pays): the refusals of a create apply to
 * every caller. They run under the key, so a retry of a create that succeeded gets its answer again, though its
 * `expiresAt` is nearer now; a refusal records nothing, except a reference already used (replayable).
 *
 * One SQL statement in all (payment-creation.statement.ts behind the key's gate, a guarded write of the runner): the
 * create was 8 statements (begin, lock, record lookup, sales unit, event, payment, record, commit), each a round trip
 * holding a pooled connection, for writes that never need an answer from the database in between.
 */
export async function createPayment(ctx: SalesUnitContext, command: CreatePaymentCommand, idempotencyKey: string): Promise<PaymentView> {
  const key = { operation: 'payment.create', key: idempotencyKey, request: command };
  const now = ctx.clock.now();
  try {
    // Express first: a CARD Express create is refused as Express (4160), not as a card in the test environment.
    refuseExpress(command);
    await refuseExpressCallbackUrl(command, ctx.config.env);
    refuseCreatePayment(command, { env: ctx.config.env, now });
  } catch (refusal) {
    // A rule of the request alone: given only when the key has no answer and no request holds it, as the order of
    // the create (the gate, then its rules) says; it records nothing.
    return runOperation(ctx, {
      key,
      guardedWrite: { ctes: [], params: [] },
      decide: () => {
        throw refusal;
      },
    });
  }
  {
    const payment: NewPayment = {
      id: timeOrderedId(),
      msn: scoped(ctx).msn,
      reference: command.reference,
      pspReference: newPspReference(),
      state: 'CREATED',
      currency: command.amount.currency,
      amount: command.amount.value,
      authorizedAmount: 0,
      capturedAmount: 0,
      cancelledAmount: 0,
      refundedAmount: 0,
      paymentMethodType: command.paymentMethod,
      cardBin: null,
      userFlow: command.userFlow,
      customerInteraction: command.customerInteraction,
      customerPhoneNumber: command.customer?.phoneNumber ?? null,
      customerPersonalQr: command.customer?.personalQr ?? null,
      customerToken: command.customer?.customerToken ?? null,
      returnUrl: command.returnUrl ?? null,
      receiptUrl: command.receiptUrl ?? null,
      paymentDescription: command.paymentDescription ?? null,
      receipt: command.receipt ?? null,
      industryData: command.industryData ?? null,
      metadata: command.metadata ?? null,
      profileScope: command.profileScope ?? null,
      profileSub: null,
      shipping: command.shipping ?? null,
      shippingDetails: null,
      personalDataRemovedAt: null,
      minimumUserAge: command.minimumUserAge ?? null,
      qrFormat: command.userFlow === 'QR' ? (command.qrFormat?.format ?? 'IMAGE/SVG+XML') : null,
      qrSize: command.userFlow === 'QR' && command.qrFormat?.format === 'IMAGE/PNG' ? (command.qrFormat.size ?? 1024) : null,
      approvalToken: randomBytes(24).toString('base64url'),
      expiresAt: command.expiresAt ?? new Date(now.getTime() + DEFAULT_PAYMENT_LIFETIME_MS),
      authorizedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const creation = paymentCreation(
      ctx.em.getMetadata().get(Payment),
      payment,
      { idempotencyKey, longLiving: command.expiresAt !== undefined, express: command.shipping !== undefined },
      toPaymentView(payment, ctx.config),
    );
    return runOperation(ctx, { key, ...creation });
  }
}

/** The caller's payment, or 404: a payment of another sales unit is indistinguishable from a missing one. */
export async function getPayment(ctx: SalesUnitContext, reference: string): Promise<PaymentView> {
  const payment = await readPayment(ctx.em, scoped(ctx).msn, reference);
  if (!payment) throw paymentNotFound(reference);
  return toPaymentViewAt(payment, ctx.config, ctx.clock.now());
}

export async function getPaymentEvents(ctx: SalesUnitContext, reference: string): Promise<PaymentEvent[]> {
  const payment = await readPayment(ctx.em, scoped(ctx).msn, reference);
  if (!payment) throw paymentNotFound(reference);
  return readPaymentEvents(ctx.em, [payment.id]);
}
