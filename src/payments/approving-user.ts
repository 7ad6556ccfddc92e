import type { Em } from '../platform/db/orm.js';
import { UserProfile } from '../user-profiles/user-profile.entity.js';
import type { ApprovingUser } from './payment-user.transitions.js';
import type { Payment } from './payment.entity.js';

/**
 * The user who approves `payment`, as `authorizePayment` needs them: their birth date too when the payment has a
 * `minimumUserAge` (one read of their profile, only then).
 */
export async function approvingUser(em: Em, payment: Payment, user: { phoneNumber: string; sub: string }): Promise<ApprovingUser> {
  if (payment.minimumUserAge === null || payment.minimumUserAge === undefined) return { phoneNumber: user.phoneNumber, sub: user.sub };
  const profile = await em.findOne(UserProfile, { sub: user.sub }, { fields: ['birthdate'] });
  return { phoneNumber: user.phoneNumber, sub: user.sub, birthdate: profile?.birthdate ?? null };
}
