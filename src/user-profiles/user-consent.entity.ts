import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Where the user consented: the wallet's consent card, or force approve standing for the user in the app. */
export type ConsentChannel = 'wallet' | 'force-approve';

/**
 * The user's consent, given on a payment's landing page (or through force approve), to share the scopes the payment asked for with its sales
 * unit. Stored in the approval's transaction; the sales unit may read the consented claims until `expiresAt`
 * (168 hours after the approval).
 */
export const UserConsent = defineEntity({
  name: 'UserConsent',
  tableName: 'user_consent',
  properties: {
    id: p.uuid().primary(),
    /** One consent per payment: the payment the user approved while consenting. */
    paymentId: p.uuid().unique(),
    sub: p.uuid(),
    msn: p.string(),
    /** The consented scope words, space-separated, as the payment asked for them. */
    scope: p.string(),
    givenThrough: p.string().$type<ConsentChannel>(),
    consentedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type UserConsent = InferEntity<typeof UserConsent>;
