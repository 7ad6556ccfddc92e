import { formatAmount } from '../../kit/money-format.js';

const LOCALE = 'nb-NO';

export interface Money {
  value: number;
  currency: string;
}

/** An amount as every page writes it (`kr 1 234,50`): the kit's one money formatter, which the wallet pages use too. */
export function formatMoney(money: Money): string {
  return formatAmount(money.value, money.currency);
}

/** A moment as every page of the dashboard writes it: `05.12.2026, 14:03:09`, in the reader's time zone. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(LOCALE, { dateStyle: 'short', timeStyle: 'medium' });
}
