import { businessRegistryModule } from './business-registry/business-registry.module.js';
import { merchantsModule } from './merchants/merchants.module.js';
import { paymentsModule } from './payments/payments.module.js';
import type { DomainModule } from './platform/module.js';
import { pagesModule } from './pages/pages.module.js';
import { platformModule } from './platform/platform.module.js';
import { userProfilesModule } from './user-profiles/user-profiles.module.js';
import { walletModule } from './wallet/wallet.module.js';
import { webhooksModule } from './webhooks/webhooks.module.js';
import { ordersModule } from './orders/orders.module.js';
import { qrModule } from './qr/qr.module.js';

/** Every domain of the service. A new domain adds its folder and one line here. */
export const modules: readonly DomainModule[] = [
  platformModule,
  merchantsModule,
  paymentsModule,
  walletModule,
  webhooksModule,
  businessRegistryModule,
  pagesModule,
  userProfilesModule,
  ordersModule,
  qrModule,
];
