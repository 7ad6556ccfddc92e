import type { DomainModule } from '../platform/module.js';
import { pageRoutes } from '../pages/pages.routes.js';

/**
 * The pages people use in a browser: the operations dashboard, the GraphQL IDE (test environment) and the bundles
 * every page loads (the wallet's pages are the wallet module's). The graph fields the dashboard reads belong to the
 * domains whose data they read.
 */
export const pagesModule: DomainModule = {
  name: 'pages',
  pages: (services) => pageRoutes(services),
};
