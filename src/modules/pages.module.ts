import { dashboardResolvers } from '../../resolvers/dashboard.js';
import type { DomainModule } from '../platform/module.js';
import { pageRoutes } from '../pages/pages.routes.js';

/**
 * The pages people use in a browser: the operations dashboard, the GraphQL IDE (test environment) and the bundles
 * every page loads (the wallet's pages are the wallet module's), and the graph fields the dashboard reads besides
 * payments and webhooks: sales units, totals, event rates, recent events, a payment's deliveries, failure rates.
 */
export const pagesModule: DomainModule = {
  name: 'pages',
  pages: (services) => pageRoutes(services),
  resolvers: [dashboardResolvers],
};
