import type { Em } from '../platform/db/orm.js';
import { PspSalesUnit } from './psp-payment.entity.js';

/** TEST-ENVIRONMENT.md: the PSP's merchant PSP-kunde AS, sales unit 112233, takes PSP payments and may skip the landing page. */
export async function seedPspSalesUnits(em: Em, now: Date): Promise<void> {
  await em.upsert(
    PspSalesUnit,
    { msn: '112233', pspId: '6c3f0a2e-5b7d-4e8a-9c1f-2d4b6a8e0c13', skipLandingPageAllowed: true, active: true, createdAt: now },
    { onConflictAction: 'ignore' },
  );
}
