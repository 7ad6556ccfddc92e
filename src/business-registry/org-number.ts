/**
 * A Norwegian organisation number: nine digits, the last a MOD11 check digit over the first eight with weights
 * 3 2 7 6 5 4 3 2 (a remainder that would need the check digit 10 makes the number invalid).
 */
export const ORG_NUMBER_PATTERN = /^\d{9}$/;

export function mod11CheckDigit(digits: string, weights: readonly number[]): number | undefined {
  const sum = weights.reduce((total, weight, i) => total + weight * Number(digits[i]), 0);
  const digit = 11 - (sum % 11);
  if (digit === 11) return 0;
  return digit === 10 ? undefined : digit;
}

export function isValidOrgNumber(value: string): boolean {
  if (!ORG_NUMBER_PATTERN.test(value)) return false;
  return mod11CheckDigit(value.slice(0, 8), [3, 2, 7, 6, 5, 4, 3, 2]) === Number(value[8]);
}

/** A Norwegian bank account number: eleven digits, the last a MOD11 check digit with weights 5 4 3 2 7 6 5 4 3 2. */
export function isValidNorwegianAccountNumber(value: string): boolean {
  if (!/^\d{11}$/.test(value)) return false;
  return mod11CheckDigit(value.slice(0, 10), [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) === Number(value[10]);
}
