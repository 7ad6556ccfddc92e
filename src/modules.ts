import { businessRegistryModule } from './modules/business-registry.module.js';
import { checkoutModule } from './modules/checkout.module.js';
import { ledgersModule } from './modules/ledgers.module.js';
import { managementModule, partnerApiModule } from './modules/management.module.js';
import { merchantsModule } from './modules/merchants.module.js';
import { operatorModule } from './modules/operator.module.js';
import { ordersModule } from './modules/orders.module.js';
import { pagesModule } from './modules/pages.module.js';
import { paymentsModule } from './modules/payments.module.js';
import type { DomainModule } from './platform/module.js';
import { platformModule } from './modules/platform.module.js';
import { pspSignupModule } from './modules/psp-signup.module.js';
import { pspModule } from './modules/psp.module.js';
import { qrModule } from './modules/qr.module.js';
import { userProfilesModule } from './modules/user-profiles.module.js';
import { walletModule } from './modules/wallet.module.js';
import { webhooksModule } from './modules/webhooks.module.js';

/**
 * Every domain of the service, by its manifest in `src/modules/`. A new domain adds its folder, its manifest and one
 * line here. The order is the order of the test environment's seeds (a module's seed may rely on an earlier one's).
 */
export const modules: readonly DomainModule[] = [
  platformModule,
  merchantsModule,
  paymentsModule,
  walletModule,
  webhooksModule,
  businessRegistryModule,
  pagesModule,
  userProfilesModule,
  ledgersModule,
  managementModule,
  partnerApiModule,
  checkoutModule,
  pspModule,
  pspSignupModule,
  ordersModule,
  qrModule,
  operatorModule,
];
