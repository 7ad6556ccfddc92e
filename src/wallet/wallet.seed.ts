import type { Em } from '../platform/db/orm.js';
import { WalletUser } from './wallet-user.entity.js';

/**
 * The simulated wallet users (TEST-ENVIRONMENT.md): who they are to the wallet. Their profiles (Kari and Ola
 * Nordmann) are the user-profiles domain's test data, under the same `sub`.
 */
export const testUsers = [
  {
    phoneNumber: '4791234567',
    sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944',
    // Has approved a payment in the app before, so force approve works for this user from the start.
    approvedPaymentsCount: 1,
  },
  {
    phoneNumber: '4798765432',
    sub: '5b1f6a7e-3f0c-4d0e-8a52-3c3b8f0d9e21',
    // Has never approved: force approve fails until this user approves once on the landing page.
    approvedPaymentsCount: 0,
  },
  {
    phoneNumber: '4795550315',
    sub: '790ceef9-6f6d-49ee-88ad-e019cebf5ca6',
    // A child (Nora, born 2015-03-01), for `minimumUserAge`; has approved before, so force approve works for her too.
    approvedPaymentsCount: 1,
  },
];

/** Idempotent: a test user who has approved since keeps the count. */
export async function seedTestUsers(em: Em): Promise<void> {
  for (const user of testUsers) await em.upsert(WalletUser, user, { onConflictAction: 'ignore' });
}
