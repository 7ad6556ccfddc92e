import { merchantResolvers } from '../../resolvers/merchants.js';
import type { DomainModule } from '../platform/module.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { seedMerchants } from '../merchants/merchants.seed.js';
import { Migration20261123161200SalesUnitSettings } from '../merchants/migrations/Migration20261123161200SalesUnitSettings.js';
import { Migration20261204100000MerchantOrgNumber } from '../merchants/migrations/Migration20261204100000MerchantOrgNumber.js';
import { Migration20261205020001SalesUnitExpress } from '../merchants/migrations/Migration20261205020001SalesUnitExpress.js';
import { Partner, PartnerSalesUnit } from '../merchants/partner.entity.js';
import { Psp, PspMerchant } from '../merchants/psp.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { SalesUnitDirectory } from '../merchants/sales-unit.directory.js';
import '../merchants/merchants.errors.js';

/** Merchants and their sales units, partners and PSPs: who a caller may act for. */
export const merchantsModule: DomainModule = {
  name: 'merchants',
  entities: [Merchant, SalesUnit, Partner, PartnerSalesUnit, Psp, PspMerchant],
  migrations: [
    { name: 'Migration20261123161200SalesUnitSettings', class: Migration20261123161200SalesUnitSettings },
    { name: 'Migration20261204100000MerchantOrgNumber', class: Migration20261204100000MerchantOrgNumber },
    { name: 'Migration20261205020001SalesUnitExpress', class: Migration20261205020001SalesUnitExpress },
  ],
  resolvers: [merchantResolvers],
  coverage: new SalesUnitDirectory(),
  seedTestEnvironment: (em, now) => seedMerchants(em, now),
};
