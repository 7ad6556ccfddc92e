import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ForceApproveCommand } from '../payments/payment.commands.js';
import { awaitsUser } from '../payments/payment-expiry.js';
import { lockOwnPaymentForVerb } from '../payments/payment-for-verb.js';
import { authorizePayment } from '../payments/payment-user.transitions.js';
import { normalizePhoneNumber } from './phone-number.js';
import { TestUser } from './test-user.entity.js';
import { scoped } from '../platform/auth/tenancy.js';

/**
 * Test-only approval without the wallet app. Works only for a test user who has approved a payment on the
 * landing page before, as the public definition requires of real test users.
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
    const phoneNumber = normalizePhoneNumber(requested);
    if (!phoneNumber) throw fail('customer.phoneNumber', 'Not a phone number');
    if (payment.customerPhoneNumber && payment.customerPhoneNumber !== phoneNumber)
      throw fail('customer.phoneNumber', 'The payment was created for another customer');
    const user = await em.findOne(TestUser, { phoneNumber });
    if (!user)
      throw new AppError('CUSTOMER_NOT_FOUND', `No test user has phone number ${phoneNumber}`, [
        { name: 'customer.phoneNumber', reason: 'Not a test user' },
      ]);
    if (user.approvedPaymentsCount === 0) {
      throw fail('customer.phoneNumber', 'This test user has not approved a payment on the landing page yet; approve one there first');
    }
    authorizePayment(em, payment, user, now);
    await em.flush();
    return undefined;
  });
  if (refusal) throw refusal;
}
