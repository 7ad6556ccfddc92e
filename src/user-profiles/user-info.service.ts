import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { scoped } from '../platform/auth/tenancy.js';
import { UserConsent } from './user-consent.entity.js';
import { isConsentReadable, unionOfScopes } from './user-consent.rules.js';
import { userInfoClaims, type UserInfo } from './user-info.claims.js';
import { UserBankAccount, UserProfile } from './user-profile.entity.js';

export const SUB_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The same answer for a sub nobody has, another sales unit's user and a user who never consented here. */
function notFound(): AppError {
  return new AppError('USER_INFO_NOT_FOUND', 'No user with this sub has consented to share a profile with this sales unit', [
    { name: 'sub', reason: 'Unknown, or no consent to this sales unit' },
  ]);
}

function expired(): AppError {
  return new AppError('USER_CONSENT_EXPIRED', 'The consent is older than 168 hours; the profile can no longer be fetched', [
    { name: 'sub', reason: 'Consent expired' },
  ]);
}

/**
 * `GET userinfo/{sub}`: the claims of every scope the user consented to share with the caller's sales unit in a
 * payment approved within the last 168 hours.
 */
export async function readUserInfo(ctx: SalesUnitContext, sub: string): Promise<UserInfo> {
  if (!SUB_PATTERN.test(sub)) throw notFound();
  const consents = await ctx.em.find(UserConsent, { sub, ...scoped(ctx) }, { orderBy: { consentedAt: 'desc' } });
  if (consents.length === 0) throw notFound();
  const now = ctx.clock.now();
  const readable = consents.filter((c) => isConsentReadable(c, now));
  if (readable.length === 0) throw expired();
  return claimsOf(ctx.em, sub, unionOfScopes(readable.map((c) => c.scope)), readable[0]!.id);
}

/** `GET userinfo/` with the user's token: the claims of the one consent the token was issued for. */
export async function readConsentedUserInfo(em: Em, consentId: string, now: Date): Promise<UserInfo> {
  const consent = await em.findOne(UserConsent, { id: consentId });
  if (!consent) throw notFound();
  if (!isConsentReadable(consent, now)) throw expired();
  return claimsOf(em, consent.sub, consent.scope, consent.id);
}

async function claimsOf(em: Em, sub: string, scope: string, consentId: string): Promise<UserInfo> {
  const profile = await em.findOne(UserProfile, { sub });
  if (!profile) throw notFound();
  const accounts = scope.split(' ').includes('accountNumbers')
    ? await em.find(UserBankAccount, { sub }, { orderBy: { accountNumber: 'asc' } })
    : [];
  return userInfoClaims(profile, accounts, scope, consentId);
}
