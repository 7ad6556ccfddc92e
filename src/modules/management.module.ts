import { managementResolvers } from '../../resolvers/management.js';
import { apiQualityRetention } from '../management/api-quality.retention.js';
import type { DomainModule } from '../platform/module.js';
import { findVisibleSalesUnit } from '../management/management.graph.js';
import { findPartnerProductOrder } from '../management/product-order.service.js';
import { apiQualityCounter, flushApiQuality } from '../management/api-quality.counter.js';
import { Migration20261123161201Management } from '../management/migrations/Migration20261123161201Management.js';
import { partnerApiRoutes } from '../management/partner-api.routes.js';
import { prefillPages } from '../management/prefill.page.js';
import { contractPages } from '../management/contract.page.js';
import { PricePackage } from '../management/price-package.entity.js';
import { ProductOrder } from '../management/product-order.entity.js';
import { productOrderEventTypes } from '../management/product-order.events.js';
import { productOrderMachine } from '../management/product-order.transitions.js';
import { managementRoutes } from '../management/management.routes.js';
import { seedManagement } from '../management/management.seed.js';
import '../management/management.errors.js';

/**
 * Merchant and partner management (spec 3): the management API, the deprecated partner API, product orders and
 * their prefill page, price packages, and API quality (requests counted in memory, flushed by every instance).
 */
export const managementModule: DomainModule = {
  name: 'management',
  entities: [PricePackage, ProductOrder],
  migrations: [{ name: 'Migration20261123161201Management', class: Migration20261123161201Management }],
  routes: managementRoutes,
  pages: (services) => [...prefillPages(services), ...contractPages(services)],
  resolvers: [managementResolvers],
  nodes: { SalesUnit: findVisibleSalesUnit, ProductOrder: findPartnerProductOrder },
  stateMachines: [productOrderMachine],
  eventTypes: [productOrderEventTypes],
  requestObserver: (services) => {
    const counter = apiQualityCounter(services);
    return (request) => counter.record(request);
  },
  // Each instance counts its own requests, so each flushes them, whether or not it runs the jobs.
  retention: [apiQualityRetention],
  instanceJobs: (services) => [{ name: 'flush-api-quality', run: () => flushApiQuality(services) }],
  // A graceful stop keeps every count: what is still in memory is flushed before the database closes.
  onClose: (services) => flushApiQuality(services),
  seedTestEnvironment: (em) => seedManagement(em),
};

/** The deprecated partner API is its own interface (another prefix and error rules), served by the same services. */
export const partnerApiModule: DomainModule = {
  name: 'partner-api',
  routes: partnerApiRoutes,
};
