import type { Em } from '../platform/db/orm.js';
import { testMerchants } from '../merchants/merchants.seed.js';
import { ensureLedger } from './ensure-ledger.js';
import { sessionOf } from '../platform/db/statement-transaction.js';
import type { SalesUnitPrice } from './ledger.rules.js';

/** The test environment's ledgers (TEST-ENVIRONMENT.md): one per merchant, with each sales unit's price; listed in the README. */
export const testLedgerSettings: Record<string, { price: SalesUnitPrice; payoutAccountId: string }> = {
  '123456': { price: { feeBasisPoints: 175, feeFixed: 100 }, payoutAccountId: '86011117947' },
  '654321': { price: { feeBasisPoints: 299, feeFixed: 0 }, payoutAccountId: '12345678903' },
  '112233': { price: { feeBasisPoints: 100, feeFixed: 50 }, payoutAccountId: '15030000005' },
};

export async function seedLedgers(em: Em, now: Date): Promise<void> {
  for (const merchant of testMerchants) {
    const settings = testLedgerSettings[merchant.msn]!;
    await ensureLedger(sessionOf(em), { msn: merchant.msn, merchantId: merchant.id }, { ...settings, now });
  }
}
