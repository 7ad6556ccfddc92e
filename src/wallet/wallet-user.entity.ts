import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A wallet user: in the test environment a seeded test user (played by a person on the landing page), and in every
 * environment a user a wallet app approved for (made known by their first approval). What the user shares with merchants
 * (name, address, ...) is their profile in the user-profiles domain, under the same `sub`.
 */
export const WalletUser = defineEntity({
  name: 'WalletUser',
  tableName: 'wallet_user',
  properties: {
    phoneNumber: p.string().primary(),
    sub: p.uuid(),
    /** Force approve works only for users who have approved a payment on the landing page before. */
    approvedPaymentsCount: p.integer(),
  },
});
export type WalletUser = InferEntity<typeof WalletUser>;
