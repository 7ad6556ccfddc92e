import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ApiClientKind } from './api-client.entity.js';

/** Claims of a Paygraph access token. */
export interface AccessTokenClaims {
  iss: string;
  /** The client id the token was issued to. */
  sub: string;
  /** The kind of principal the token acts as. */
  knd: ApiClientKind;
  /** The principal's id: the merchant's id, the partner id or the PSP id, as `knd` says. */
  pid: string;
  /** SHA-256 digest of the subscription key the token was issued with; requests must present the same key. */
  skd: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** Any JWT the service signs carries at least its expiry and start; access tokens and other kinds add their claims. */
export interface SignedClaims {
  nbf: number;
  exp: number;
}

export function signJwt<C extends SignedClaims = AccessTokenClaims>(claims: C, secret: string): string {
  const payload = base64url(JSON.stringify(claims));
  return `${HEADER}.${payload}.${sign(`${HEADER}.${payload}`, secret)}`;
}

export type JwtVerdict<C = AccessTokenClaims> = { ok: true; claims: C } | { ok: false; reason: string };

/**
 * Checks signature, expiry and start. The claims are typed as the caller expects them; a caller whose tokens share
 * the secret with another kind tells them apart by a claim of its own (access tokens by `knd`).
 */
export function verifyJwt<C extends SignedClaims = AccessTokenClaims>(token: string, secret: string, nowSeconds: number): JwtVerdict<C> {
  const signed = signedClaims<C>(token, secret);
  if (!signed.ok) return signed;
  const { claims } = signed;
  if (typeof claims.exp !== 'number' || nowSeconds >= claims.exp) return { ok: false, reason: 'The access token has expired' };
  if (typeof claims.nbf !== 'number' || nowSeconds < claims.nbf) return { ok: false, reason: 'The access token is not valid yet' };
  return { ok: true, claims };
}

/**
 * Tokens whose signature was checked, with their claims. A request checks its token twice (the rate limiter names
 * the caller before the request front authenticates it) and a client sends one token for an hour: the profile of
 * the benchmark showed the HMAC and the payload's decoding among the top costs of a read. Times are checked on
 * every use; only the signature's verdict is kept, for the secret it was checked with.
 */
const verifiedTokens = new Map<string, { secret: string; claims: SignedClaims }>();
const VERIFIED_TOKENS_KEPT = 1_000;

function signedClaims<C extends SignedClaims>(token: string, secret: string): JwtVerdict<C> {
  const known = verifiedTokens.get(token);
  if (known && known.secret === secret) return { ok: true, claims: known.claims as C };
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'The access token is not a JWT' };
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) return { ok: false, reason: 'The access token is not an HS256 JWT issued here' };
  const expected = Buffer.from(sign(`${header}.${payload}`, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, reason: 'The access token signature is invalid' };
  }
  let claims: C;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as C;
  } catch {
    return { ok: false, reason: 'The access token payload is not JSON' };
  }
  if (typeof claims !== 'object' || claims === null) return { ok: false, reason: 'The access token payload is not a JSON object' };
  Object.freeze(claims);
  if (verifiedTokens.size >= VERIFIED_TOKENS_KEPT) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, { secret, claims });
  return { ok: true, claims };
}

function sign(input: string, secret: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
