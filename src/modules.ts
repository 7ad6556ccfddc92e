import { businessRegistryModule } from './business-registry/business-registry.module.js';
import { checkoutModule } from './checkout/checkout.module.js';
import { ledgersModule } from './ledgers/ledgers.module.js';
import { managementModule, partnerApiModule } from './management/management.module.js';
import { merchantsModule } from './merchants/merchants.module.js';
import { operatorModule } from './operator/operator.module.js';
import { ordersModule } from './orders/orders.module.js';
import { pagesModule } from './pages/pages.module.js';
import { paymentsModule } from './payments/payments.module.js';
import type { DomainModule } from './platform/module.js';
import { platformModule } from './platform/platform.module.js';
import { pspSignupModule } from './psp-signup/psp-signup.module.js';
import { pspModule } from './psp/psp.module.js';
import { qrModule } from './qr/qr.module.js';
import { userProfilesModule } from './user-profiles/user-profiles.module.js';
import { walletModule } from './wallet/wallet.module.js';
import { webhooksModule } from './webhooks/webhooks.module.js';

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
