import type { DomainModule } from '../platform/module.js';
import { Merchant } from './merchant.entity.js';
import { Migration20261123161200SalesUnitSettings } from './migrations/Migration20261123161200SalesUnitSettings.js';
import { Partner, PartnerSalesUnit } from './partner.entity.js';
import { Psp, PspMerchant } from './psp.entity.js';
import { SalesUnit } from './sales-unit.entity.js';
import { SalesUnitDirectory } from './sales-unit.directory.js';
import './merchants.errors.js';

/** Merchants and their sales units, partners and PSPs: who a caller may act for. */
export const merchantsModule: DomainModule = {
  name: 'merchants',
  entities: [Merchant, SalesUnit, Partner, PartnerSalesUnit, Psp, PspMerchant],
  migrations: [{ name: 'Migration20261123161200SalesUnitSettings', class: Migration20261123161200SalesUnitSettings }],
  coverage: new SalesUnitDirectory(),
};
