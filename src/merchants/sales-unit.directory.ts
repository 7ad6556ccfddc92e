import type { SalesUnitAccess } from '../platform/auth/sales-unit-access.js';
import type { Em } from '../platform/db/orm.js';
import { PartnerSalesUnit } from './partner.entity.js';
import { PspMerchant } from './psp.entity.js';
import { SalesUnit } from './sales-unit.entity.js';

/**
 * Which merchant owns which MSN, and who else may act for it. Ownership never changes once a sales unit exists,
 * so found owners are kept for the life of the process; misses are not, so a new sales unit is seen at once.
 * Partner connections and PSP sign-ups can end, so they are read every time.
 */
export class SalesUnitDirectory implements SalesUnitAccess {
  private readonly owners = new Map<string, string>();

  async ownerOf(em: Em, msn: string): Promise<string | undefined> {
    const cached = this.owners.get(msn);
    if (cached) return cached;
    const unit = await em.findOne(SalesUnit, { msn });
    if (unit) this.owners.set(msn, unit.merchantId);
    return unit?.merchantId;
  }

  /** The partner's connection to the sales unit, with whether the merchant consented to share its data. */
  async partnerConnection(em: Em, partnerId: string, msn: string): Promise<{ merchantConsent: boolean } | undefined> {
    const connection = await em.findOne(PartnerSalesUnit, { partnerId, msn });
    return connection ? { merchantConsent: connection.merchantConsent } : undefined;
  }

  /** Whether the sales unit belongs to a merchant the PSP signed up. */
  async isPspSalesUnit(em: Em, pspId: string, msn: string): Promise<boolean> {
    const owner = await this.ownerOf(em, msn);
    return owner !== undefined && (await em.count(PspMerchant, { pspId, merchantId: owner })) > 0;
  }
}
