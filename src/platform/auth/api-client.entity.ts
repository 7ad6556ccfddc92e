import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Who an API client belongs to; the access tokens it gets act as that kind of principal. */
export type ApiClientKind = 'merchant' | 'partner' | 'psp' | 'operator' | 'wallet';

/**
 * Credentials a merchant, partner or PSP uses to get access tokens. Secrets and keys are stored as SHA-256 digests
 * only. Exactly the owner column its kind names is set (a database check says so); an operator's or a wallet app's client has none.
 */
export const ApiClient = defineEntity({
  name: 'ApiClient',
  tableName: 'api_client',
  properties: {
    clientId: p.string().primary(),
    clientSecretDigest: p.string(),
    subscriptionKeyDigest: p.string(),
    kind: p.string().$type<ApiClientKind>(),
    merchantId: p.uuid().nullable(),
    partnerId: p.string().nullable(),
    pspId: p.uuid().nullable(),
    /**
     * The secret before the latest rotation, still accepted until `previousSecretRetiresAt` (or until an operator
     * retires it), so the client's owner can roll the new one out without an outage.
     */
    previousClientSecretDigest: p.string().nullable(),
    previousSecretRetiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type ApiClient = InferEntity<typeof ApiClient>;
