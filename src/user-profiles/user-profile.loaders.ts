import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { UserConsent } from './user-consent.entity.js';
import { UserBankAccount, UserProfile } from './user-profile.entity.js';

/** The consent given with each payment on a page of payments, in one statement. */
export const userConsentByPaymentIdLoader = defineLoader(
  'userConsentByPaymentIdLoader',
  (em) =>
    new DataLoader<string, UserConsent | null>(async (paymentIds) => {
      const consents = await em.find(UserConsent, { paymentId: { $in: [...paymentIds] } });
      const byPayment = new Map(consents.map((c) => [c.paymentId, c]));
      return paymentIds.map((id) => byPayment.get(id) ?? null);
    }),
);

export const userProfileBySubLoader = defineLoader(
  'userProfileBySubLoader',
  (em) =>
    new DataLoader<string, UserProfile | null>(async (subs) => {
      const profiles = await em.find(UserProfile, { sub: { $in: [...subs] } });
      const bySub = new Map(profiles.map((p) => [p.sub, p]));
      return subs.map((sub) => bySub.get(sub) ?? null);
    }),
);

export const userBankAccountsBySubLoader = defineLoader(
  'userBankAccountsBySubLoader',
  (em) =>
    new DataLoader<string, UserBankAccount[]>(async (subs) => {
      const accounts = await em.find(UserBankAccount, { sub: { $in: [...subs] } }, { orderBy: { accountNumber: 'asc' } });
      return subs.map((sub) => accounts.filter((a) => a.sub === sub));
    }),
);
