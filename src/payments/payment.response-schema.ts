import Type from 'typebox';

/**
 * The body of `GET /epayment/v1/payments/{reference}` (payment.presenter.ts `getPaymentResponse`), as the interface's
 * OpenAPI document shows it: the 1.4.1 fields and those of the platform since 2025 (FACTS §14.1, §14.2),
 * `shippingDetails` and `userDetails`. A test checks real answers against it, so it cannot drift from the presenter.
 */
const Money = Type.Object(
  { currency: Type.String(), value: Type.Integer({ description: 'Minor units' }) },
  { additionalProperties: false },
);

const Address = Type.Object(
  {
    addressLine1: Type.String(),
    addressLine2: Type.Union([Type.String(), Type.Null()]),
    city: Type.String(),
    postCode: Type.String(),
    country: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  },
  { additionalProperties: false },
);

export const PaymentResponse = Type.Object(
  {
    aggregate: Type.Object(
      { authorizedAmount: Money, cancelledAmount: Money, capturedAmount: Money, refundedAmount: Money },
      { additionalProperties: false },
    ),
    /** With Express, once AUTHORIZED: the create's amount plus the shipping cost. */
    amount: Money,
    state: Type.String({ enum: ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'] }),
    paymentMethod: Type.Object({ type: Type.String(), cardBin: Type.Optional(Type.String()) }, { additionalProperties: false }),
    profile: Type.Object({ sub: Type.Optional(Type.String()) }, { additionalProperties: false }),
    pspReference: Type.String(),
    reference: Type.String(),
    redirectUrl: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    shippingDetails: Type.Optional(
      Type.Object(
        {
          address: Address,
          shippingOptionId: Type.String(),
          shippingOptionName: Type.String(),
          shippingCost: Type.Integer({ description: 'Minor units, in the payment currency' }),
        },
        { additionalProperties: false, description: 'Express (a create with `shipping`): the address and option the user chose' },
      ),
    ),
    userDetails: Type.Optional(
      Type.Object(
        {
          firstName: Type.Optional(Type.String()),
          lastName: Type.Optional(Type.String()),
          email: Type.Optional(Type.String()),
          mobileNumber: Type.Optional(Type.String()),
          addresses: Type.Optional(Type.Array(Address)),
        },
        { additionalProperties: false, description: 'With `profile.scope`, once AUTHORIZED: exactly the consented scopes' },
      ),
    ),
    personalDataRemovedAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When shippingDetails and userDetails were removed after their retention' }),
    ),
  },
  { additionalProperties: false },
);
