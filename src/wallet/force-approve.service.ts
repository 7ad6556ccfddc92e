import type { SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ForceApproveCommand } from '../payments/payment.commands.js';
import { awaitsUser } from '../payments/payment-expiry.js';
import { paymentNotFound, runPaymentVerb, type PaymentForVerb, type VerbDecision } from '../payments/payment-for-verb.js';
import { authorizePayment } from '../payments/payment-user.transitions.js';
import { testUserApproves } from './test-user-approval.js';
import { approvingUser } from '../payments/approving-user.js';
import { scoped } from '../platform/auth/tenancy.js';

/**
 * Test-only approval without the wallet app: the test user approving in the app, consent screen included (a
 * payment that asks for a profile records the user's consent, marked as given through force approve). Works only
 * for a test user who has approved a payment on a wallet page before, as the public definition requires of real
 * test users.
 */
export async function forceApprovePayment(ctx: SalesUnitContext, reference: string, command: ForceApproveCommand): Promise<void> {
  if (ctx.config.env !== 'test') {
    throw new AppError('FORBIDDEN_IN_PRODUCTION', 'Force approve is only available in the test environment');
  }
  const fail = (name: string, reason: string) => new AppError('APPROVE_FAILED', reason, [{ name, reason }]);
  const refusal = await ctx.em.transactional(async (em) => {
    const answer = await runPaymentVerb(
      { em, clock: ctx.clock },
      {
        payment: { msn: scoped(ctx).msn, reference },
        time: ctx.clock.now(),
        mayRecord: ['AUTHORIZED'],
        // The test user approving in the app: a payment that asks for a profile is approved with the user's consent.
        readMore: async (taken) => {
          const requested = taken && (command.customer?.phoneNumber ?? taken.payment.customerPhoneNumber);
          if (!taken || !requested || !mayApprove(taken)) return undefined;
          const { payment, now } = taken;
          const approved = await testUserApproves(
            em,
            {
              phoneNumber: requested,
              channel: 'force-approve',
              act: 'approve',
              customerPhoneNumber: payment.customerPhoneNumber,
              profile: payment.profileScope
                ? { paymentId: payment.id, reference: payment.reference, msn: payment.msn, scope: payment.profileScope, consented: true }
                : undefined,
            },
            now,
          );
          return { requested, approved, user: approved.ok ? await approvingUser(em, payment, approved.user) : undefined };
        },
        decide: (taken, tested): VerbDecision<AppError | undefined> => {
          if (!taken) throw paymentNotFound(reference);
          const { payment, now, expiredNow } = taken;
          // Answered, not thrown: the inline expiry must commit though the approval is refused.
          if (expiredNow) return { value: fail('reference', 'The payment is EXPIRED and cannot be approved') };
          // Express: the user chooses address and shipping in the wallet, so only the landing page approves it (FACTS §14.1).
          if (payment.shipping) {
            throw new AppError('EXPRESS_APPROVE_NOT_ALLOWED', 'An Express payment is approved by the user on the landing page', [
              { name: 'reference', reason: 'Express payments cannot be force approved; approve on the landing page' },
            ]);
          }
          if (command.token !== undefined && command.token !== payment.approvalToken) throw fail('token', 'Not the token of this payment');
          if (!awaitsUser(payment, now))
            throw fail('reference', `The payment is ${payment.state === 'CREATED' ? 'expired' : payment.state} and cannot be approved`);
          if (command.customer?.personalQr || command.customer?.customerToken)
            throw fail('customer', 'Test users are identified by phoneNumber');
          if (!tested) throw fail('customer.phoneNumber', 'Name the test user who approves');
          const { requested, approved } = tested;
          if (!approved.ok && approved.refusal === 'UNKNOWN_USER') {
            throw new AppError('CUSTOMER_NOT_FOUND', `No test user has phone number ${requested}`, [
              { name: 'customer.phoneNumber', reason: 'Not a test user' },
            ]);
          }
          if (!approved.ok || !tested.user) throw fail('customer.phoneNumber', approved.ok ? 'Not a test user' : approved.message);
          return { value: undefined, events: [authorizePayment(payment, tested.user, now, ctx.config.env)] };
        },
      },
    );
    // The consent the approval recorded commits with it.
    await em.flush();
    return answer;
  });
  if (refusal) throw refusal;
}

/** Whether the approval's own checks pass, so the test user is worth reading (the decision repeats them to refuse). */
function mayApprove({ payment, now, expiredNow }: PaymentForVerb): boolean {
  return !expiredNow && awaitsUser(payment, now) && !payment.shipping;
}
