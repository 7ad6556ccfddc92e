/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { createHmac } from 'node:crypto';
import { signJwt, verifyJwt, type AccessTokenClaims } from '../../src/platform/auth/jwt.js';

const SECRET = 'a-test-secret-of-at-least-32-characters';
const NOW = 1_800_000_000;

function claims(overrides: Partial<AccessTokenClaims> = {}): AccessTokenClaims {
  return {
    iss: 'https://paygraph.example',
    sub: 'test-client-123456',
    knd: 'merchant',
    pid: '0b0e8a5c-1f4e-4c57-9d1a-000000123456',
    skd: 'ab'.repeat(32),
    iat: NOW,
    nbf: NOW,
    exp: NOW + 3600,
    jti: '6f1c1f9e-7d0e-4a2b-9a55-3c2b1a0f9e8d',
    ...overrides,
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hmac = (input: string, secret = SECRET) => createHmac('sha256', secret).update(input).digest('base64url');
/** A token assembled by hand from its parts, signed with `secret` (what an attacker without the key cannot do). */
const assemble = (header: unknown, payload: unknown, secret = SECRET) =>
  `${b64(header)}.${b64(payload)}.${hmac(`${b64(header)}.${b64(payload)}`, secret)}`;

function reasonOf(token: string, now = NOW, secret = SECRET): string | undefined {
  const verdict = verifyJwt(token, secret, now);
  return verdict.ok ? undefined : verdict.reason;
}

describe('signJwt / verifyJwt', () => {
  test('round trip: the claims come back unchanged', () => {
    expect(verifyJwt(signJwt(claims(), SECRET), SECRET, NOW)).toEqual({ ok: true, claims: claims() });
  });

  test('a token accepted once is still checked for its times, and for the secret, on every use', () => {
    const token = signJwt(claims(), SECRET);
    expect(reasonOf(token)).toBeUndefined();
    expect(reasonOf(token, NOW + 3600)).toBe('The access token has expired');
    expect(reasonOf(token, NOW - 1)).toBe('The access token is not valid yet');
    expect(reasonOf(token, NOW, 'another-secret-of-at-least-32-characters')).toBe('The access token signature is invalid');
    expect(reasonOf(token)).toBeUndefined();
  });

  test('the token is an HS256 JWT of three base64url parts, signed over header.payload', () => {
    const token = signJwt(claims(), SECRET);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(token.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual(claims());
    expect(signature).toBe(hmac(`${header}.${payload}`));
  });

  test('a token signed with another secret is refused', () => {
    expect(reasonOf(signJwt(claims(), 'another-secret-of-at-least-32-characters'))).toMatch(/signature/);
  });

  test('a changed payload with the original signature is refused', () => {
    const [header, , signature] = signJwt(claims(), SECRET).split('.') as [string, string, string];
    expect(reasonOf(`${header}.${b64(claims({ pid: 'another-merchant' }))}.${signature}`)).toMatch(/signature/);
  });

  test.each([0, 10, 42])('a signature with character %i changed is refused', (index) => {
    const token = signJwt(claims(), SECRET);
    const at = token.lastIndexOf('.') + 1 + index;
    const forged = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(reasonOf(forged)).toMatch(/signature/);
  });

  test('a truncated or empty signature is refused', () => {
    const token = signJwt(claims(), SECRET);
    expect(reasonOf(token.slice(0, -1))).toMatch(/signature/);
    expect(reasonOf(token.slice(0, token.lastIndexOf('.') + 1))).toMatch(/signature/);
  });

  test.each([
    ['alg none, unsigned', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
    ['alg none, signed with the key', assemble({ alg: 'none', typ: 'JWT' }, claims())],
    ['another header spelling', assemble({ typ: 'JWT', alg: 'HS256' }, claims())],
  ])('a token with a foreign header is refused: %s', (_what, token) => {
    expect(reasonOf(token)).toBeDefined();
  });

  test.each(['', 'abc', 'a.b', 'a.b.c.d'])('%p is not a JWT', (token) => {
    expect(reasonOf(token)).toMatch(/not a JWT|not an HS256 JWT|signature/);
  });

  test('a correctly signed payload that is not JSON is refused', () => {
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const payload = Buffer.from('not json').toString('base64url');
    expect(reasonOf(`${header}.${payload}.${hmac(`${header}.${payload}`)}`)).toMatch(/JSON/);
  });

  test.each([null, 42, 'claims', [1, 2]])('a correctly signed payload of %p is refused, not thrown', (payload) => {
    expect(reasonOf(assemble({ alg: 'HS256', typ: 'JWT' }, payload))).toBeDefined();
  });
});

describe('expiry and not-before', () => {
  test('valid from nbf up to the second before exp', () => {
    const token = signJwt(claims(), SECRET);
    expect(reasonOf(token, NOW)).toBeUndefined();
    expect(reasonOf(token, NOW + 3599)).toBeUndefined();
  });

  test('expired at exp and after', () => {
    const token = signJwt(claims(), SECRET);
    expect(reasonOf(token, NOW + 3600)).toMatch(/expired/);
    expect(reasonOf(token, NOW + 86_400)).toMatch(/expired/);
  });

  test('not valid before nbf', () => {
    const token = signJwt(claims({ nbf: NOW + 60 }), SECRET);
    expect(reasonOf(token, NOW + 59)).toMatch(/not valid yet/);
    expect(reasonOf(token, NOW + 60)).toBeUndefined();
  });

  test('a correctly signed token without exp or nbf is refused', () => {
    const { exp: _exp, ...noExp } = claims();
    const { nbf: _nbf, ...noNbf } = claims();
    expect(reasonOf(assemble({ alg: 'HS256', typ: 'JWT' }, noExp))).toMatch(/expired/);
    expect(reasonOf(assemble({ alg: 'HS256', typ: 'JWT' }, noNbf))).toMatch(/not valid yet/);
  });

  test('a correctly signed token with a string exp is refused', () => {
    expect(reasonOf(assemble({ alg: 'HS256', typ: 'JWT' }, { ...claims(), exp: String(NOW + 3600) }))).toMatch(/expired/);
  });
});
