import type { DomainModule } from '../platform/module.js';
import { Merchant } from './merchant.entity.js';
import { SalesUnit } from './sales-unit.entity.js';

/** Merchants and their sales units: who a caller may act for. */
export const merchantsModule: DomainModule = {
  name: 'merchants',
  entities: [Merchant, SalesUnit],
};
