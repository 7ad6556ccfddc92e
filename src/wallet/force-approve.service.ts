import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ForceApproveCommand } from '../payments/payment.commands.js';
import { awaitsUser } from '../payments/payment-expiry.js';
import { lockOwnPaymentForVerb } from '../payments/payment-for-verb.js';
import { authorizePayment } from '../payments/payment-user.transitions.js';
import { testUserApproves } from './test-user-approval.js';
import { scoped } from '../platform/auth/tenancy.js';

/**
 * Test-only approval without the wallet app: the test user approving in the app, consent screen included (a
 * payment that asks for a profile records the user's consent, marked as given through force approve). Works only
 * for a test user who has approved a payment on a wallet page before, as the public definition requires of real
 * test users.
 */
export async function forceApprovePayment(ctx: RequestContext, reference: string, command: ForceApproveCommand): Promise<void> {
  if (ctx.config.env !== 'test') {
    throw new AppError('FORBIDDEN_IN_PRODUCTION', 'Force approve is only available in the test environment');
  }
  const fail = (name: string, reason: string) => new AppError('APPROVE_FAILED', reason, [{ name, reason }]);
  const refusal = await ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const { payment, expiredNow } = await lockOwnPaymentForVerb(em, scoped(ctx).msn, reference, now);
    if (expiredNow) {
      // Returned, not thrown: the inline expiry must commit though the approval is refused.
      await em.flush();
      return fail('reference', 'The payment is EXPIRED and cannot be approved');
    }
    if (command.token !== undefined && command.token !== payment.approvalToken) throw fail('token', 'Not the token of this payment');
    if (!awaitsUser(payment, now))
      throw fail('reference', `The payment is ${payment.state === 'CREATED' ? 'expired' : payment.state} and cannot be approved`);
    if (command.customer?.personalQr || command.customer?.customerToken) throw fail('customer', 'Test users are identified by phoneNumber');
    const requested = command.customer?.phoneNumber ?? payment.customerPhoneNumber;
    if (!requested) throw fail('customer.phoneNumber', 'Name the test user who approves');
    // The test user approving in the app: a payment that asks for a profile is approved with the user's consent.
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
    if (!approved.ok && approved.refusal === 'UNKNOWN_USER') {
      throw new AppError('CUSTOMER_NOT_FOUND', `No test user has phone number ${requested}`, [
        { name: 'customer.phoneNumber', reason: 'Not a test user' },
      ]);
    }
    if (!approved.ok) throw fail('customer.phoneNumber', approved.message);
    const { user } = approved;
    authorizePayment(em, payment, user, now);
    await em.flush();
    return undefined;
  });
  if (refusal) throw refusal;
}
