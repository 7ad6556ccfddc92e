import { signJwt, verifyJwt } from '../platform/auth/jwt.js';

/** A PSP recurring agreement's `userToken` (a JWT): names the agreement; kept apart from access tokens by `typ`. */
interface PspUserTokenClaims {
  typ: 'psp-user-token';
  agr: string;
  nbf: number;
  exp: number;
}

/** Valid for a year; ending the agreement refuses it earlier. */
const LIFETIME_SECONDS = 365 * 24 * 3600;

export function signPspUserToken(agreementId: string, now: Date, secret: string): string {
  const nbf = Math.floor(now.getTime() / 1000);
  return signJwt<PspUserTokenClaims>({ typ: 'psp-user-token', agr: agreementId, nbf, exp: nbf + LIFETIME_SECONDS }, secret);
}

/** The agreement id a user token names, or undefined when it is not a valid, unexpired user token of ours. */
export function agreementOfUserToken(token: string, now: Date, secret: string): string | undefined {
  const verdict = verifyJwt<PspUserTokenClaims>(token, secret, Math.floor(now.getTime() / 1000));
  if (!verdict.ok || verdict.claims.typ !== 'psp-user-token' || typeof verdict.claims.agr !== 'string') return undefined;
  return verdict.claims.agr;
}
