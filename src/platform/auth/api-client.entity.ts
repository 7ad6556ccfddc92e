import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Credentials a merchant uses to get access tokens. Secrets and keys are stored as SHA-256 digests only. */
export const ApiClient = defineEntity({
  name: 'ApiClient',
  tableName: 'api_client',
  properties: {
    clientId: p.string().primary(),
    clientSecretDigest: p.string(),
    subscriptionKeyDigest: p.string(),
    merchantId: p.uuid(),
    createdAt: p.datetime(),
  },
});
export type ApiClient = InferEntity<typeof ApiClient>;
