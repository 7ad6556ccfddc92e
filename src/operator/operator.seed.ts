import { ApiClient } from '../platform/auth/api-client.entity.js';
import { digest } from '../platform/auth/digest.js';
import type { Em } from '../platform/db/orm.js';

/** The operator's API client of the test environment (README): the operator mutations, nothing else. */
export const testOperator = {
  clientId: 'test-client-operator',
  clientSecret: 'test-secret-operator',
  subscriptionKey: 'test-key-operator',
};

/** Idempotent, like every test-environment seed. */
export async function seedOperatorClient(em: Em, now: Date): Promise<void> {
  await em.upsert(
    ApiClient,
    {
      clientId: testOperator.clientId,
      clientSecretDigest: digest(testOperator.clientSecret),
      subscriptionKeyDigest: digest(testOperator.subscriptionKey),
      kind: 'operator',
      createdAt: now,
    },
    { onConflictAction: 'ignore' },
  );
}
