import { ApiClient } from '../../src/platform/auth/api-client.entity.js';
import { digest } from '../../src/platform/auth/digest.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { Merchant } from '../../src/merchants/merchant.entity.js';
import { Psp, PspMerchant } from '../../src/merchants/psp.entity.js';
import { SalesUnit } from '../../src/merchants/sales-unit.entity.js';
import { PspSalesUnit } from '../../src/psp/psp-payment.entity.js';
import { PspClient } from '../support/psp-client.js';
import type { TestApp } from '../support/test-app.js';

export const PSP_MSN = '112233';
let counter = 0;

/** A fresh PSP transaction id and merchant order id (lowercase letters and digits). */
export function newIds(): { pspTransactionId: string; merchantOrderId: string } {
  counter++;
  const n = `${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e6).toString(36)}`;
  return { pspTransactionId: `tx${n}`, merchantOrderId: `order-${n}` };
}

/** The test PSP acting for its merchant's sales unit 112233. */
export function testPspClient(t: TestApp): PspClient & { msnHeaders: Record<string, string> } {
  return Object.assign(new PspClient(t.baseUrl), { msnHeaders: { 'Merchant-Serial-Number': PSP_MSN } });
}

export const SECOND_PSP_MSN = '998877';

/**
 * A second PSP, created in the test (TEST-ENVIRONMENT.md has one), with a merchant of its own whose sales unit
 * 998877 takes PSP payments.
 */
export async function createSecondPsp(t: TestApp): Promise<PspClient> {
  const id = '7d4e1b3f-6c8e-4f9b-8d2a-3e5c7b9f1d24';
  const credentials = { clientId: 'second-psp', clientSecret: 'second-psp-secret', subscriptionKey: 'second-psp-key' };
  const em = forkEm(t.app.services.orm);
  const now = new Date();
  await em.upsert(Psp, { id, name: 'Second PSP AS', createdAt: now }, { onConflictAction: 'ignore' });
  await em.upsert(
    ApiClient,
    {
      clientId: credentials.clientId,
      clientSecretDigest: digest(credentials.clientSecret),
      subscriptionKeyDigest: digest(credentials.subscriptionKey),
      kind: 'psp',
      pspId: id,
      createdAt: now,
    },
    { onConflictAction: 'ignore' },
  );
  const merchantId = '7d4e1b3f-6c8e-4f9b-8d2a-000000998877';
  await em.upsert(
    Merchant,
    { id: merchantId, name: 'Andre PSP-kunde AS', orgNumber: '920000029', createdAt: now },
    { onConflictAction: 'ignore' },
  );
  await em.upsert(
    SalesUnit,
    { msn: SECOND_PSP_MSN, merchantId, name: 'Andre PSP-kunde Online', longLivingPaymentsAllowed: false, createdAt: now },
    { onConflictAction: 'ignore' },
  );
  await em.upsert(PspMerchant, { pspId: id, merchantId, createdAt: now }, { onConflictAction: 'ignore' });
  await em.upsert(
    PspSalesUnit,
    { msn: SECOND_PSP_MSN, pspId: id, skipLandingPageAllowed: false, active: true, createdAt: now },
    { onConflictAction: 'ignore' },
  );
  return new PspClient(t.baseUrl, id, credentials);
}
