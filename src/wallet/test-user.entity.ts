import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A wallet user of the test environment, played by a person on the landing page. What the user shares with merchants
 * (name, address, ...) is their profile in the user-profiles domain, under the same `sub`.
 */
export const TestUser = defineEntity({
  name: 'TestUser',
  tableName: 'test_user',
  properties: {
    phoneNumber: p.string().primary(),
    sub: p.uuid(),
    /** Force approve works only for users who have approved a payment on the landing page before. */
    approvedPaymentsCount: p.integer(),
  },
});
export type TestUser = InferEntity<typeof TestUser>;
