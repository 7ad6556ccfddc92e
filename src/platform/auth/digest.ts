import { createHash, timingSafeEqual } from 'node:crypto';

/** Secrets are stored as SHA-256 digests: they are long random strings, so no slow hash is needed. */
export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
