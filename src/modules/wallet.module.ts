import type { DomainModule } from '../platform/module.js';
import { TestUser } from '../wallet/test-user.entity.js';
import { walletPages } from '../wallet/wallet.routes.js';
import { seedTestUsers } from '../wallet/wallet.seed.js';
import '../wallet/wallet.errors.js';

/** The simulated wallet user of the test environment: landing pages, QR images, force approve's test users. */
export const walletModule: DomainModule = {
  name: 'wallet',
  entities: [TestUser],
  pages: walletPages,
  seedTestEnvironment: (em) => seedTestUsers(em),
};
