import { randomUUID } from 'node:crypto';
import type { Em } from '../platform/db/orm.js';
import { recordEvent } from '../platform/events/record-event.js';
import { UserConsent, type ConsentChannel } from './user-consent.entity.js';
import { consentExpiry } from './user-consent.rules.js';

export const USER_CONSENT_STREAM = 'user-consent';
/** The outbox name of a consent; no webhook carries it (the payment's AUTHORIZED event tells the merchant). */
export const CONSENT_GIVEN_EVENT = 'userinfo.consent.given.v1';

/** What the approval knows when the user consents: the payment they approve and who they are. */
export interface ConsentingApproval {
  paymentId: string;
  reference: string;
  msn: string;
  /** The scope the payment asked for, which the user consented to as a whole. */
  scope: string;
  sub: string;
  /** The wallet's consent card, or force approve (the test user approving in the app, consent screen included). */
  givenThrough: ConsentChannel;
}

/**
 * Stores the user's consent in the caller's unit of work (the approval's transaction), with its event: the
 * approval and the consent commit or roll back together.
 */
export function recordConsent(em: Em, approval: ConsentingApproval, now: Date): UserConsent {
  const consent = em.create(UserConsent, {
    id: randomUUID(),
    paymentId: approval.paymentId,
    sub: approval.sub,
    msn: approval.msn,
    scope: approval.scope,
    givenThrough: approval.givenThrough,
    consentedAt: now,
    expiresAt: consentExpiry(now),
  });
  recordEvent(em, {
    streamType: USER_CONSENT_STREAM,
    streamId: consent.id,
    msn: approval.msn,
    name: CONSENT_GIVEN_EVENT,
    // Which user shared what with whom, never the shared data itself: the outbox is no copy of the profile.
    payload: {
      consentId: consent.id,
      sub: approval.sub,
      reference: approval.reference,
      scope: approval.scope,
      givenThrough: approval.givenThrough,
      expiresAt: consent.expiresAt.toISOString(),
    },
    occurredAt: now,
  });
  return consent;
}

/** The scope the user consented to with this payment, for the landing page to show; null when they gave none. */
export async function consentedScopeOf(em: Em, paymentId: string): Promise<string | null> {
  const consent = await em.findOne(UserConsent, { paymentId }, { fields: ['scope'] });
  return consent?.scope ?? null;
}
