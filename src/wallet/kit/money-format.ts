const LOCALE = 'nb-NO';

/** An amount as a Norwegian wallet shows it: `kr 123,45` for NOK, the currency's own sign otherwise. */
export function formatAmount(minorUnits: number, currency: string): string {
  return new Intl.NumberFormat(LOCALE, { style: 'currency', currency, minimumFractionDigits: 2 }).format(minorUnits / 100);
}

/** The same amount in the interface's plain notation (`123.45 NOK`), as receipts and the API show it. */
export function plainAmount(minorUnits: number, currency: string): string {
  return `${(minorUnits / 100).toFixed(2)} ${currency}`;
}
