import { AppError } from '../platform/errors/app-error.js';
import type { PaymentPageQuery } from './payment.read-model.js';
import type { PaymentOutcome } from './payment-outcome.js';
import type { PaymentState } from './payment.transitions.js';

/** A search over the caller's payments as the graph's PaymentFilter gives it (dates as ISO strings). */
export interface PaymentSearch {
  state?: PaymentState[] | null;
  outcome?: PaymentOutcome[] | null;
  referencePrefix?: string | null;
  amountFrom?: number | null;
  amountTo?: number | null;
  createdFrom?: string | null;
  createdBefore?: string | null;
}

/** References are at most 64 characters (FACTS §1.2): a longer prefix can match nothing and is a mistake. */
const MAX_PREFIX = 64;

/** The read's criteria for a search, refused (VALIDATION_FAILED, naming the field) when they cannot be meant. */
export function paymentSearchCriteria(
  search: PaymentSearch | null | undefined,
): Omit<PaymentPageQuery, 'msn' | 'now' | 'limit' | 'before'> {
  if (!search) return {};
  const prefix = search.referencePrefix ?? undefined;
  if (prefix !== undefined && prefix.length > MAX_PREFIX) {
    throw AppError.validation([{ name: 'referencePrefix', reason: `At most ${MAX_PREFIX} characters` }]);
  }
  for (const field of ['amountFrom', 'amountTo'] as const) {
    const value = search[field];
    if (value != null && value < 0) throw AppError.validation([{ name: field, reason: 'Zero or more minor units' }]);
  }
  if (search.amountFrom != null && search.amountTo != null && search.amountFrom > search.amountTo) {
    throw AppError.validation([{ name: 'amountTo', reason: 'Not less than amountFrom' }]);
  }
  const createdFrom = search.createdFrom ? new Date(search.createdFrom) : undefined;
  const createdBefore = search.createdBefore ? new Date(search.createdBefore) : undefined;
  if (createdFrom && createdBefore && createdFrom >= createdBefore) {
    throw AppError.validation([{ name: 'createdBefore', reason: 'Later than createdFrom' }]);
  }
  return {
    states: search.state ?? undefined,
    outcomes: search.outcome ?? undefined,
    referencePrefix: prefix || undefined,
    amountFrom: search.amountFrom ?? undefined,
    amountTo: search.amountTo ?? undefined,
    createdFrom,
    createdBefore,
  };
}

/** The search as part of a cursor's list: a cursor handed out for one search is refused by another. */
export function searchKey(search: PaymentSearch | null | undefined): string {
  if (!search) return '';
  const entries = Object.entries(search).filter(([, value]) => value != null);
  entries.sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}
