import { ApiClient } from '../platform/auth/api-client.entity.js';
import { digest } from '../platform/auth/digest.js';
import type { Em } from '../platform/db/orm.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { TestUser } from '../wallet/test-user.entity.js';

/** Demo credentials of the test environment; documented in the README. Production seeds nothing. */
export const testMerchants = [
  {
    id: '0b0e8a5c-1f4e-4c57-9d1a-000000123456',
    name: 'Paygraph Test Shop',
    orgNumber: '987654321',
    msn: '123456',
    salesUnitName: 'Test Shop Online',
  },
  {
    id: '0b0e8a5c-1f4e-4c57-9d1a-000000654321',
    name: 'Paygraph Test Cafe',
    orgNumber: '912345678',
    msn: '654321',
    salesUnitName: 'Test Cafe Counter',
  },
].map((m) => ({ ...m, clientId: `test-client-${m.msn}`, clientSecret: `test-secret-${m.msn}`, subscriptionKey: `test-key-${m.msn}` }));

export const testUsers = [
  {
    phoneNumber: '4791234567',
    sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944',
    givenName: 'Ada',
    familyName: 'Nordmann',
    email: 'ada.nordmann@example.com',
    streetAddress: 'Robert Levins gate 5',
    postalCode: '0154',
    region: 'Oslo',
    country: 'NO',
    birthDate: '1990-04-12',
    nin: '12049012345',
    // Has approved a payment in the app before, so force approve works for this user from the start.
    approvedPaymentsCount: 1,
  },
  {
    phoneNumber: '4798765432',
    sub: '5b1f6a7e-3f0c-4d0e-8a52-3c3b8f0d9e21',
    givenName: 'Ola',
    familyName: 'Hansen',
    email: 'ola.hansen@example.com',
    streetAddress: 'Storgata 1',
    postalCode: '9008',
    region: 'Tromsø',
    country: 'NO',
    birthDate: '1985-11-30',
    nin: '30118512345',
    // Has never approved: force approve fails until this user approves once on the landing page.
    approvedPaymentsCount: 0,
  },
];

/** Idempotent: existing rows are left as they are, so a restart never resets what testers did. */
export async function seedTestEnvironment(em: Em, now: Date): Promise<void> {
  await em.transactional(async (tx) => {
    for (const m of testMerchants) {
      await tx.upsert(Merchant, { id: m.id, name: m.name, orgNumber: m.orgNumber, createdAt: now }, { onConflictAction: 'ignore' });
      await tx.upsert(
        SalesUnit,
        { msn: m.msn, merchantId: m.id, name: m.salesUnitName, longLivingPaymentsAllowed: true, createdAt: now },
        { onConflictAction: 'ignore' },
      );
      await tx.upsert(
        ApiClient,
        {
          clientId: m.clientId,
          clientSecretDigest: digest(m.clientSecret),
          subscriptionKeyDigest: digest(m.subscriptionKey),
          merchantId: m.id,
          createdAt: now,
        },
        { onConflictAction: 'ignore' },
      );
    }
    for (const user of testUsers) await tx.upsert(TestUser, user, { onConflictAction: 'ignore' });
  });
}
