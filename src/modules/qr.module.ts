import { qrResolvers } from '../../resolvers/qr.js';
import type { DomainModule } from '../platform/module.js';
import { Migration20261123160901Qr } from '../qr/migrations/Migration20261123160901Qr.js';
import { qrEventTypes } from '../qr/qr-event.types.js';
import { qrScanPages } from '../qr/qr-scan.page.js';
import { qrOpenApiPage, qrPublicPages, qrRoutes } from '../qr/qr.routes.js';
import '../qr/qr.errors.js';

/** QR codes: redirect, one-time and callback QRs with real images, and the check-in a callback QR's scan records. */
export const qrModule: DomainModule = {
  name: 'qr',
  migrations: [{ name: 'Migration20261123160901Qr', class: Migration20261123160901Qr }],
  routes: qrRoutes,
  pages: (services) => [...qrPublicPages(services), ...qrScanPages(services), qrOpenApiPage(services)],
  resolvers: [qrResolvers],
  eventTypes: [qrEventTypes],
};
