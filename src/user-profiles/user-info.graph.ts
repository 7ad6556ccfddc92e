import type { SalesUnitContext } from '../platform/context.js';
import { isConsentReadable } from './user-consent.rules.js';
import { userInfoClaims, type UserInfo } from './user-info.claims.js';
import { userBankAccountsBySubLoader, userConsentByPaymentIdLoader, userProfileBySubLoader } from './user-profile.loaders.js';

/** The graph's `UserInfo`: the claims, with the consent they rest on. */
export interface UserInfoView extends UserInfo {
  scope: string;
  readableUntil: string;
}

/**
 * The profile shared by the consent given with this payment, if that consent is the caller's sales unit's and still
 * readable: the same claims and time limit as `GET userinfo/{sub}`. Batched, so a page of payments costs a constant
 * number of statements.
 */
export async function paymentUserInfo(ctx: SalesUnitContext, paymentId: string): Promise<UserInfoView | null> {
  const consent = await ctx.loaders.get(userConsentByPaymentIdLoader).load(paymentId);
  if (!consent || consent.msn !== ctx.scope.msn || !isConsentReadable(consent, ctx.clock.now())) return null;
  const wantsAccounts = consent.scope.split(' ').includes('accountNumbers');
  const [profile, accounts] = await Promise.all([
    ctx.loaders.get(userProfileBySubLoader).load(consent.sub),
    wantsAccounts ? ctx.loaders.get(userBankAccountsBySubLoader).load(consent.sub) : [],
  ]);
  if (!profile) return null;
  return {
    ...userInfoClaims(profile, accounts, consent.scope, consent.id),
    scope: consent.scope,
    readableUntil: consent.expiresAt.toISOString(),
  };
}
