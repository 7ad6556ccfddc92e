import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { Em } from '../platform/db/orm.js';
import type { ConsentChannel, UserConsent } from '../user-profiles/user-consent.entity.js';
import { recordConsent } from '../user-profiles/user-consent.recorder.js';
import { normalizePhoneNumber } from '../user-profiles/phone-number.js';
import { WalletUser } from './wallet-user.entity.js';

/**
 * Where the user acts: on one of the wallet's test pages (a person plays the user), through force approve (the
 * merchant's or PSP's test API, standing for the user approving in the app, consent screen included), or in a wallet
 * app whose client acts for its own user (test and production alike: the app authenticated the user).
 */
export type TestUserChannel = 'page' | 'force-approve' | 'wallet-client';

/** What the test user does: approve a payment (ePayment, checkout, PSP), or check in at a merchant's QR. */
export type TestUserAct = 'approve' | 'check-in';

export interface TestUserApproval {
  /** The phone number as typed or sent: the 8-digit Norwegian test numbers too. */
  phoneNumber: string | undefined;
  channel: TestUserChannel;
  act: TestUserAct;
  /** The customer the payment was made for, if the merchant named one: another user may not approve it. */
  customerPhoneNumber?: string | null;
  /**
   * The profile a payment asks the user to share: on a page the user ticks the consent box (`consented`); through
   * force approve the consent is part of the approval, as in the app, and is recorded as given there.
   */
  profile?: { paymentId: string; reference: string; msn: string; scope: string; consented: boolean };
}

export type TestUserRefusal = 'NOT_A_PHONE_NUMBER' | 'UNKNOWN_USER' | 'OTHER_CUSTOMER' | 'NO_PAGE_APPROVAL_YET' | 'CONSENT_REQUIRED';

export type TestUserApproved =
  { ok: true; user: WalletUser; consent?: UserConsent } | { ok: false; refusal: TestUserRefusal; message: string };

const MESSAGES: Record<TestUserRefusal, string> = {
  NOT_A_PHONE_NUMBER: 'Not a phone number',
  UNKNOWN_USER: 'No test user has that phone number',
  OTHER_CUSTOMER: 'The payment was made for another customer',
  NO_PAGE_APPROVAL_YET: 'This test user has not approved a payment on the landing page yet; approve one there first',
  CONSENT_REQUIRED: 'To approve, agree to share the information asked for',
};

/**
 * The one way a wallet user approves (or checks in), whatever page or API stands for the wallet app: a test user of
 * the test environment on a page or through force approve, or the user of a wallet app whose client acts for them (in
 * test and production alike). The phone number read as the pages read it (8 digits are a Norwegian number), the user's row locked
 * for the rest of the caller's transaction when the user's own approval counts (so concurrent approvals count exactly), the
 * payment's customer checked, force approve allowed only to a user who approved on a page before (as the public
 * definition asks of real test users), and a payment's profile consent recorded in the same transaction. The caller
 * changes its payment.
 */
export async function testUserApproves(em: Em, approval: TestUserApproval, now: Date): Promise<TestUserApproved> {
  const refuse = (refusal: TestUserRefusal): TestUserApproved => ({ ok: false, refusal, message: MESSAGES[refusal] });
  const phoneNumber = approval.phoneNumber === undefined ? undefined : normalizePhoneNumber(approval.phoneNumber);
  if (!phoneNumber) return refuse('NOT_A_PHONE_NUMBER');
  // Only an approval by the user (on a page or in a wallet app) writes the user's count, so only it locks the row
  // (concurrent approvals then count exactly); force approve and check-in only read it, and do not queue behind each
  // other on one test user.
  const countsApproval = approval.act === 'approve' && approval.channel !== 'force-approve';
  // A wallet app vouches for its user: the first approval in the app makes the user known here (production seeds none).
  if (approval.channel === 'wallet-client') {
    await em.execute('insert into wallet_user (phone_number, sub, approved_payments_count) values (?, ?, 0) on conflict do nothing', [
      phoneNumber,
      randomUUID(),
    ]);
  }
  const user = await em.findOne(WalletUser, { phoneNumber }, countsApproval ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!user) return refuse('UNKNOWN_USER');
  const customer = approval.customerPhoneNumber ? normalizePhoneNumber(approval.customerPhoneNumber) : undefined;
  if (customer && customer !== user.phoneNumber) return refuse('OTHER_CUSTOMER');
  if (approval.channel === 'force-approve' && user.approvedPaymentsCount === 0) return refuse('NO_PAGE_APPROVAL_YET');
  const profile = approval.profile;
  if (profile && approval.channel !== 'force-approve' && !profile.consented) return refuse('CONSENT_REQUIRED');
  if (countsApproval) user.approvedPaymentsCount += 1;
  const givenThrough: ConsentChannel = approval.channel === 'force-approve' ? 'force-approve' : 'wallet';
  const consent = profile
    ? recordConsent(
        em,
        { paymentId: profile.paymentId, reference: profile.reference, msn: profile.msn, scope: profile.scope, sub: user.sub, givenThrough },
        now,
      )
    : undefined;
  return consent ? { ok: true, user, consent } : { ok: true, user };
}
