import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A wallet user of the test environment, played by a person on the landing page. */
export const TestUser = defineEntity({
  name: 'TestUser',
  tableName: 'test_user',
  properties: {
    phoneNumber: p.string().primary(),
    sub: p.uuid(),
    givenName: p.string(),
    familyName: p.string(),
    email: p.string(),
    streetAddress: p.string(),
    postalCode: p.string(),
    region: p.string(),
    country: p.string(),
    birthDate: p.string(),
    nin: p.string(),
    /** Force approve works only for users who have approved a payment on the landing page before. */
    approvedPaymentsCount: p.integer(),
  },
});
export type TestUser = InferEntity<typeof TestUser>;
