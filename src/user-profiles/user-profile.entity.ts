import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An address of a user besides the default one (userinfo's `other_addresses`). */
export interface OtherAddress {
  addressType: 'home' | 'work' | 'other';
  streetAddress: string;
  postalCode: string;
  region: string;
  country: string;
}

/**
 * A wallet user's profile: what a merchant may be shown once the user consents. Keyed by `sub`, the user's id at
 * the profile service (the `sub` a payment reports); the wallet's test user names the same `sub`.
 */
export const UserProfile = defineEntity({
  name: 'UserProfile',
  tableName: 'user_profile',
  properties: {
    sub: p.uuid().primary(),
    phoneNumber: p.string().unique(),
    givenName: p.string(),
    familyName: p.string(),
    email: p.string(),
    emailVerified: p.boolean(),
    /** `YYYY-MM-DD`. */
    birthdate: p.string(),
    /** The national identity number (11 digits). */
    nin: p.string(),
    streetAddress: p.string(),
    postalCode: p.string(),
    region: p.string(),
    country: p.string(),
    /** The user's other addresses, after the default one above; null: none. */
    otherAddresses: p.json<OtherAddress[]>().nullable(),
  },
});
export type UserProfile = InferEntity<typeof UserProfile>;

/** A bank account the user registered in the wallet (the deprecated `accounts` claim). */
export const UserBankAccount = defineEntity({
  name: 'UserBankAccount',
  tableName: 'user_bank_account',
  properties: {
    sub: p.uuid().primary(),
    accountNumber: p.string().primary(),
    accountName: p.string(),
    bankName: p.string(),
  },
});
export type UserBankAccount = InferEntity<typeof UserBankAccount>;
