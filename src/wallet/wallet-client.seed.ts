import { ApiClient } from '../platform/auth/api-client.entity.js';
import { digest } from '../platform/auth/digest.js';
import type { Em } from '../platform/db/orm.js';

/** The test environment's wallet app client (README): acts for the test users through the wallet's graph fields. */
export const testWalletClient = {
  clientId: 'test-client-wallet',
  clientSecret: 'test-secret-wallet',
  subscriptionKey: 'test-key-wallet',
};

/** Idempotent, like every test-environment seed. */
export async function seedWalletClient(em: Em, now: Date): Promise<void> {
  await em.upsert(
    ApiClient,
    {
      clientId: testWalletClient.clientId,
      clientSecretDigest: digest(testWalletClient.clientSecret),
      subscriptionKeyDigest: digest(testWalletClient.subscriptionKey),
      kind: 'wallet',
      createdAt: now,
    },
    { onConflictAction: 'ignore' },
  );
}
