import { LockMode } from '@mikro-orm/core';
import type { Em } from '../platform/db/orm.js';
import type { ConsentChannel, UserConsent } from '../user-profiles/user-consent.entity.js';
import { recordConsent } from '../user-profiles/user-consent.recorder.js';
import { normalizePhoneNumber } from '../user-profiles/phone-number.js';
import { TestUser } from './test-user.entity.js';

/**
 * Where the test user acts: on one of the wallet's pages (a person plays the user), or through force approve (the
 * merchant's or PSP's test API, standing for the user approving in the app, consent screen included).
 */
export type TestUserChannel = 'page' | 'force-approve';

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
  { ok: true; user: TestUser; consent?: UserConsent } | { ok: false; refusal: TestUserRefusal; message: string };

const MESSAGES: Record<TestUserRefusal, string> = {
  NOT_A_PHONE_NUMBER: 'Not a phone number',
  UNKNOWN_USER: 'No test user has that phone number',
  OTHER_CUSTOMER: 'The payment was made for another customer',
  NO_PAGE_APPROVAL_YET: 'This test user has not approved a payment on the landing page yet; approve one there first',
  CONSENT_REQUIRED: 'To approve, agree to share the information asked for',
};

/**
 * The one way a test user of the test environment approves (or checks in), whatever page or API stands for the
 * wallet app: the phone number read as the pages read it (8 digits are a Norwegian number), the user's row locked
 * for the rest of the caller's transaction when a page approval counts (so concurrent approvals count exactly), the
 * payment's customer checked, force approve allowed only to a user who approved on a page before (as the public
 * definition asks of real test users), and a payment's profile consent recorded in the same transaction. The caller
 * changes its payment.
 */
export async function testUserApproves(em: Em, approval: TestUserApproval, now: Date): Promise<TestUserApproved> {
  const refuse = (refusal: TestUserRefusal): TestUserApproved => ({ ok: false, refusal, message: MESSAGES[refusal] });
  const phoneNumber = approval.phoneNumber === undefined ? undefined : normalizePhoneNumber(approval.phoneNumber);
  if (!phoneNumber) return refuse('NOT_A_PHONE_NUMBER');
  // Only an approval on a page writes the user's count, so only it locks the row (concurrent page approvals then count
  // exactly); force approve and check-in only read it, and do not queue behind each other on one test user.
  const countsApproval = approval.act === 'approve' && approval.channel === 'page';
  const user = await em.findOne(TestUser, { phoneNumber }, countsApproval ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!user) return refuse('UNKNOWN_USER');
  const customer = approval.customerPhoneNumber ? normalizePhoneNumber(approval.customerPhoneNumber) : undefined;
  if (customer && customer !== user.phoneNumber) return refuse('OTHER_CUSTOMER');
  if (approval.channel === 'force-approve' && user.approvedPaymentsCount === 0) return refuse('NO_PAGE_APPROVAL_YET');
  const profile = approval.profile;
  if (profile && approval.channel === 'page' && !profile.consented) return refuse('CONSENT_REQUIRED');
  if (countsApproval) user.approvedPaymentsCount += 1;
  const givenThrough: ConsentChannel = approval.channel === 'page' ? 'wallet' : 'force-approve';
  const consent = profile
    ? recordConsent(
        em,
        { paymentId: profile.paymentId, reference: profile.reference, msn: profile.msn, scope: profile.scope, sub: user.sub, givenThrough },
        now,
      )
    : undefined;
  return consent ? { ok: true, user, consent } : { ok: true, user };
}
