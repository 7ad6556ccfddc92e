import { ApiClient } from '../platform/auth/api-client.entity.js';
import { digest } from '../platform/auth/digest.js';
import type { Em } from '../platform/db/orm.js';
import { Merchant } from './merchant.entity.js';
import { Partner, PartnerSalesUnit } from './partner.entity.js';
import { Psp, PspMerchant } from './psp.entity.js';
import { SalesUnit } from './sales-unit.entity.js';

/** Merchants of the test environment (TEST-ENVIRONMENT.md), with their sales units; documented in the README. */
export const testMerchants = [
  {
    id: '0b0e8a5c-1f4e-4c57-9d1a-000000123456',
    name: 'Testbutikk AS',
    orgNumber: '920000002',
    msn: '123456',
    salesUnitName: 'Test Shop Online',
    longLivingPaymentsAllowed: true,
  },
  {
    id: '0b0e8a5c-1f4e-4c57-9d1a-000000654321',
    name: 'Prøvehandel AS',
    orgNumber: '920000010',
    msn: '654321',
    salesUnitName: 'Test Cafe Counter',
    longLivingPaymentsAllowed: true,
  },
  {
    id: '0b0e8a5c-1f4e-4c57-9d1a-000000112233',
    name: 'PSP-kunde AS',
    orgNumber: '920000088',
    msn: '112233',
    salesUnitName: 'PSP-kunde Online',
    longLivingPaymentsAllowed: false,
  },
];

/** The merchants' own API clients; the PSP's merchant has none (its PSP acts for it). */
export const testMerchantClients = testMerchants
  .filter((m) => m.msn !== '112233')
  .map((m) => ({ ...m, clientId: `test-client-${m.msn}`, clientSecret: `test-secret-${m.msn}`, subscriptionKey: `test-key-${m.msn}` }));

export const testPartner = {
  id: '100200',
  name: 'Testpartner AS',
  status: 'ACTIVE' as const,
  clientId: 'test-client-partner',
  clientSecret: 'test-secret-partner',
  subscriptionKey: 'test-key-partner',
  /** Connected sales units; only Testbutikk AS has consented to share its data with the partner. */
  salesUnits: [
    { msn: '123456', merchantConsent: true },
    { msn: '654321', merchantConsent: false },
  ],
};

export const testPsp = {
  id: '6c3f0a2e-5b7d-4e8a-9c1f-2d4b6a8e0c13',
  name: 'Test PSP AS',
  clientId: 'test-client-psp',
  clientSecret: 'test-secret-psp',
  subscriptionKey: 'test-key-psp',
  merchantIds: ['0b0e8a5c-1f4e-4c57-9d1a-000000112233'],
};

/**
 * The merchants, partner and PSP of the test environment, with their API clients. Idempotent: existing rows are left
 * as they are, so a restart never resets what testers did.
 */
export async function seedMerchants(em: Em, now: Date): Promise<void> {
  const ignore = { onConflictAction: 'ignore' } as const;
  await em.transactional(async (tx) => {
    for (const m of testMerchants) {
      await tx.upsert(Merchant, { id: m.id, name: m.name, orgNumber: m.orgNumber, createdAt: now }, ignore);
      await tx.upsert(
        SalesUnit,
        { msn: m.msn, merchantId: m.id, name: m.salesUnitName, longLivingPaymentsAllowed: m.longLivingPaymentsAllowed, createdAt: now },
        ignore,
      );
    }
    for (const m of testMerchantClients) {
      await tx.upsert(ApiClient, { ...credentials(m), kind: 'merchant', merchantId: m.id, createdAt: now }, ignore);
    }
    const partner = testPartner;
    await tx.upsert(Partner, { id: partner.id, name: partner.name, status: partner.status, createdAt: now }, ignore);
    for (const unit of partner.salesUnits) await tx.upsert(PartnerSalesUnit, { partnerId: partner.id, ...unit, createdAt: now }, ignore);
    await tx.upsert(ApiClient, { ...credentials(partner), kind: 'partner', partnerId: partner.id, createdAt: now }, ignore);
    const psp = testPsp;
    await tx.upsert(Psp, { id: psp.id, name: psp.name, createdAt: now }, ignore);
    for (const merchantId of psp.merchantIds) await tx.upsert(PspMerchant, { pspId: psp.id, merchantId, createdAt: now }, ignore);
    await tx.upsert(ApiClient, { ...credentials(psp), kind: 'psp', pspId: psp.id, createdAt: now }, ignore);
  });
}

function credentials(client: { clientId: string; clientSecret: string; subscriptionKey: string }) {
  return {
    clientId: client.clientId,
    clientSecretDigest: digest(client.clientSecret),
    subscriptionKeyDigest: digest(client.subscriptionKey),
  };
}
