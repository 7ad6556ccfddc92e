import type { DomainModule } from '../platform/module.js';
import { walletResolvers } from '../../resolvers/wallet.js';
import { WalletUser } from '../wallet/wallet-user.entity.js';
import { Migration20261205060000WalletUser } from '../wallet/migrations/Migration20261205060000WalletUser.js';
import { Migration20261206000000WalletUserContract } from '../wallet/migrations/Migration20261206000000WalletUserContract.js';
import { seedWalletClient } from '../wallet/wallet-client.seed.js';
import { walletPages } from '../wallet/wallet.routes.js';
import { seedTestUsers } from '../wallet/wallet.seed.js';
import '../wallet/wallet.errors.js';

/**
 * The wallet side: the landing page a payer opens (the production page says "approve in the app"; the test
 * environment's plays the wallet user), QR images, force approve's test users, and the graph fields a wallet app's
 * client uses to act for its users.
 */
export const walletModule: DomainModule = {
  name: 'wallet',
  entities: [WalletUser],
  migrations: [
    { name: 'Migration20261205060000WalletUser', class: Migration20261205060000WalletUser },
    { name: 'Migration20261206000000WalletUserContract', class: Migration20261206000000WalletUserContract },
  ],
  pages: walletPages,
  resolvers: [walletResolvers],
  seedTestEnvironment: async (em, now) => {
    await seedTestUsers(em);
    await seedWalletClient(em, now);
  },
};
