import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { signJwt, verifyJwt } from '../platform/auth/jwt.js';
import { AppError } from '../platform/errors/app-error.js';
import type { UserConsent } from './user-consent.entity.js';

/**
 * The wallet user's own access token (the login browser flow's), handed to the merchant's `returnUrl` after an
 * approval with consent: it names the user, the consent, the sales unit and the consented scope. Signed with the
 * service's token secret like access tokens, and told apart from them by `typ`: it carries no subscription-key
 * digest, so no API interface takes it as a client's token.
 */
export interface UserTokenClaims {
  iss: string;
  typ: 'wallet-user';
  /** The user's `sub`. */
  sub: string;
  /** The consent the token reads. */
  cid: string;
  /** The sales unit the user consented to share with. */
  msn: string;
  scope: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

export interface IssuedUserToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

export function issueUserToken(config: Config, consent: UserConsent, now: Date): IssuedUserToken {
  const iat = Math.floor(now.getTime() / 1000);
  // No longer than the consent may be read, nor than an access token lives.
  const exp = Math.min(iat + config.tokenLifetimeSeconds, Math.floor(consent.expiresAt.getTime() / 1000));
  const claims: UserTokenClaims = {
    iss: config.publicUrl,
    typ: 'wallet-user',
    sub: consent.sub,
    cid: consent.id,
    msn: consent.msn,
    scope: consent.scope,
    iat,
    nbf: iat,
    exp,
    jti: randomUUID(),
  };
  return { accessToken: signJwt(claims, config.tokenSecret), expiresIn: exp - iat, scope: consent.scope };
}

/** The claims of a user token in `Authorization: Bearer …`, or a 401 naming the header. */
export function verifyUserToken(config: Config, authorization: string | undefined, now: Date): UserTokenClaims {
  const refuse = (reason: string) => new AppError('UNAUTHORIZED', reason, [{ name: 'Authorization', reason }]);
  if (!authorization?.startsWith('Bearer ') || authorization.slice(7).trim() === '') {
    throw refuse('The user access token is required as "Bearer <token>"');
  }
  const verdict = verifyJwt<UserTokenClaims>(authorization.slice(7).trim(), config.tokenSecret, Math.floor(now.getTime() / 1000));
  if (!verdict.ok) throw refuse(verdict.reason);
  const claims = verdict.claims;
  if (claims.typ !== 'wallet-user' || typeof claims.cid !== 'string' || typeof claims.msn !== 'string') {
    throw refuse('Not a user access token: this operation takes the token the landing page handed to the merchant');
  }
  return claims;
}
