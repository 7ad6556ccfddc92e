import type { Em } from '../platform/db/orm.js';
import { SalesUnit } from './sales-unit.entity.js';

/**
 * Which merchant owns which MSN. Ownership never changes once a sales unit exists, so found entries are kept
 * for the life of the process; misses are not, so a new sales unit is seen at once.
 */
export class SalesUnitDirectory {
  private readonly owners = new Map<string, string>();

  async ownerOf(em: Em, msn: string): Promise<string | undefined> {
    const cached = this.owners.get(msn);
    if (cached) return cached;
    const unit = await em.findOne(SalesUnit, { msn });
    if (unit) this.owners.set(msn, unit.merchantId);
    return unit?.merchantId;
  }
}
