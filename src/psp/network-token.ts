import { randomBytes, randomInt } from 'node:crypto';

/** The card data the make-payment callback and token payments carry (FACTS §6): a test network token. */
export interface NetworkToken {
  number: string;
  cryptogram: string;
  expiryMonth: string;
  expiryYear: string;
  tokenType: 'VISA' | 'MASTERCARD';
  eci: string;
}

/** The Luhn check digit of `digits` (the card number without its last digit). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

export function passesLuhn(number: string): boolean {
  return /^\d{12,19}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === Number(number.at(-1));
}

/**
 * A fresh 16-digit token in a real network's range (VISA 4…, MASTERCARD 51–55…) passing the Luhn check, with a
 * cryptogram, an expiry three years ahead and the network's ECI for an authenticated wallet payment.
 */
export function issueNetworkToken(
  now: Date,
  tokenType: NetworkToken['tokenType'] = randomInt(2) === 0 ? 'VISA' : 'MASTERCARD',
): NetworkToken {
  const prefix = tokenType === 'VISA' ? '4' : `5${1 + randomInt(5)}`;
  let body = prefix;
  while (body.length < 15) body += String(randomInt(10));
  const expiry = new Date(Date.UTC(now.getUTCFullYear() + 3, now.getUTCMonth(), 1));
  return {
    number: body + String(luhnCheckDigit(body)),
    cryptogram: randomBytes(20).toString('base64'),
    expiryMonth: String(expiry.getUTCMonth() + 1).padStart(2, '0'),
    expiryYear: String(expiry.getUTCFullYear()),
    tokenType,
    eci: tokenType === 'VISA' ? '05' : '02',
  };
}
