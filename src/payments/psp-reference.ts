import { randomInt } from 'node:crypto';

/** A ten-digit reference of the payment service provider side, one per payment and one per event. */
export function newPspReference(): string {
  return String(randomInt(1_000_000_000, 10_000_000_000));
}
