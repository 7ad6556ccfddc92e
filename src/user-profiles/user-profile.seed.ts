import type { Em } from '../platform/db/orm.js';
import { UserBankAccount, UserProfile } from './user-profile.entity.js';

/**
 * The profiles of the test environment's wallet users (TEST-ENVIRONMENT.md), under the `sub` of each test user.
 * The national identity numbers are synthetic (valid check digits, birth dates of the profiles).
 */
export const testUserProfiles: readonly (UserProfile & { accounts: Omit<UserBankAccount, 'sub'>[] })[] = [
  {
    sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944',
    phoneNumber: '4791234567',
    givenName: 'Kari',
    familyName: 'Nordmann',
    email: 'kari.nordmann@example.com',
    emailVerified: true,
    birthdate: '1990-01-01',
    nin: '01019012480',
    streetAddress: 'Storgata 1',
    postalCode: '0155',
    region: 'Oslo',
    country: 'NO',
    // Her work address: the second address an Express payment's landing page offers (issue 34).
    otherAddresses: [
      { addressType: 'work', streetAddress: 'Dronning Eufemias gate 16', postalCode: '0191', region: 'Oslo', country: 'NO' },
    ],
    accounts: [{ accountNumber: '86011117947', accountName: 'Brukskonto', bankName: 'Testbanken ASA' }],
  },
  {
    sub: '5b1f6a7e-3f0c-4d0e-8a52-3c3b8f0d9e21',
    phoneNumber: '4798765432',
    givenName: 'Ola',
    familyName: 'Nordmann',
    email: 'ola.nordmann@example.com',
    emailVerified: true,
    birthdate: '1985-06-15',
    nin: '15068545630',
    streetAddress: 'Kirkegata 2',
    postalCode: '0153',
    region: 'Oslo',
    country: 'NO',
    otherAddresses: null,
    accounts: [],
  },
  {
    // Under age for most `minimumUserAge` (issue 34): her age is counted on the sales unit's test clock.
    sub: '790ceef9-6f6d-49ee-88ad-e019cebf5ca6',
    phoneNumber: '4795550315',
    givenName: 'Nora',
    familyName: 'Nordmann',
    email: 'nora.nordmann@example.com',
    emailVerified: true,
    birthdate: '2015-03-01',
    nin: '01031550056',
    streetAddress: 'Storgata 1',
    postalCode: '0155',
    region: 'Oslo',
    country: 'NO',
    otherAddresses: null,
    accounts: [],
  },
];

/**
 * Written as documented at every start, overwriting what an older seed wrote (the profiles are fixed data nobody
 * edits; consents, which testers do create, are left alone).
 */
export async function seedUserProfiles(em: Em): Promise<void> {
  for (const { accounts, ...profile } of testUserProfiles) {
    await em.upsert(UserProfile, profile);
    for (const account of accounts) await em.upsert(UserBankAccount, { sub: profile.sub, ...account });
  }
}
