import { randomBytes, randomInt } from 'node:crypto';

/** A client secret or subscription key: 32 random bytes, URL-safe, shown once and stored only as a digest. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A merchant serial number for a new sales unit: six digits, the public format (the database checks uniqueness). */
export function newMsn(): string {
  return String(randomInt(100_000, 1_000_000));
}

/** A partner id: the public partner ids are numbers, up to 20 characters in our table. */
export function newPartnerId(): string {
  return String(randomInt(100_000_000, 1_000_000_000));
}
