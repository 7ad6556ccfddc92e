const LOCALE = 'nb-NO';

export interface Money {
  value: number;
  currency: string;
}

export function formatMoney(money: Money): string {
  return new Intl.NumberFormat(LOCALE, { style: 'currency', currency: money.currency, minimumFractionDigits: 2 }).format(money.value / 100);
}

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(LOCALE, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(LOCALE, { dateStyle: 'short', timeStyle: 'medium' });
}
