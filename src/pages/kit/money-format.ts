/** The signs the wallet writes before an amount; another currency is written with its code. */
const SIGNS: Record<string, string> = { NOK: 'kr', DKK: 'kr.', SEK: 'kr', EUR: '€' };

/** A no-break space: an amount never wraps between its sign and its digits or inside its digits. */
const NBSP = '\u00a0';

/**
 * An amount as the wallet pages write it everywhere: `kr 1 234,50` (sign first, a space between thousands, a comma
 * before the øre). Built by hand so every page, and the server and the browser alike, write it the same way.
 */
export function formatAmount(minorUnits: number, currency: string): string {
  const negative = minorUnits < 0;
  const abs = Math.abs(Math.trunc(minorUnits));
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, NBSP);
  const cents = String(abs % 100).padStart(2, '0');
  return `${negative ? '−' : ''}${SIGNS[currency] ?? currency}${NBSP}${whole},${cents}`;
}
