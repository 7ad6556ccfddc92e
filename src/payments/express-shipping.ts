import Type, { type Static } from 'typebox';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import type { PaymentAddress } from '../user-profiles/user-details.js';

/**
 * The shape of Express shipping (FACTS §14.1): what a create's `shipping` and a shipping callback's answer are made
 * of, as WooCommerce 6.0.5 sends them, and what the user chose. Declarations only; the rules are in express.rules.ts.
 */

export const SHIPPING_TYPES = ['HOME_DELIVERY', 'PICKUP_POINT', 'MAILBOX', 'IN_STORE', 'OTHER'] as const;
export const SHIPPING_BRANDS = [
  'BRING',
  'DHL',
  'FEDEX',
  'GLS',
  'HELTHJEM',
  'INSTABOX',
  'MATKAHUOLTO',
  'PORTERBUDDY',
  'POSTEN',
  'POSTI',
  'POSTNORD',
  'OTHER',
] as const;
/** Largest shipping amount in minor units, as the largest payment (FACTS §1.2). */
const MAX_SHIPPING_AMOUNT = 65_000_000;

const ShippingOption = Type.Object({
  /** WooCommerce's rate ids (`flat_rate:3`, `pickup_location:0:2`, ids with `$`): up to 100 characters. */
  id: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  /** JSON numbers with a zero fraction (`4900.0`, PHP's `round()`) are integers: JSON does not tell them apart. */
  amount: Type.Object({
    currency: stringEnum(['NOK', 'DKK', 'EUR'] as const),
    value: Type.Integer({ minimum: 0, maximum: MAX_SHIPPING_AMOUNT }),
  }),
  isDefault: Type.Optional(Type.Boolean()),
  priority: Type.Optional(Type.Integer()),
  meta: Type.Optional(Type.String({ maxLength: 255 })),
  estimatedDelivery: Type.Optional(Type.String({ maxLength: 100 })),
});

const ShippingGroup = Type.Object({
  brand: stringEnum(SHIPPING_BRANDS),
  type: stringEnum(SHIPPING_TYPES),
  isDefault: Type.Optional(Type.Boolean()),
  priority: Type.Optional(Type.Integer()),
  options: Type.Array(ShippingOption, { minItems: 1, maxItems: 50 }),
});

export const ShippingGroups = Type.Array(ShippingGroup, { minItems: 1, maxItems: 50 });

/** `shipping` of a create: Express. The rules that weigh its parts follow in `expressProblems` and `refuseExpress`. */
export const Shipping = Type.Object({
  fixedOptions: Type.Optional(ShippingGroups),
  dynamicOptions: Type.Optional(
    Type.Object({
      callbackUrl: Type.String({ minLength: 1, maxLength: 2048 }),
      callbackAuthorizationToken: Type.String({ minLength: 1, maxLength: 1000 }),
    }),
  ),
  allowedCountries: Type.Optional(
    Type.Array(Type.String({ pattern: '^[A-Z]{2}$', [REASONS]: { pattern: 'Must be an ISO 3166-1 alpha-2 country code' } }), {
      minItems: 1,
      maxItems: 250,
    }),
  ),
});

export type ShippingGroup = Static<typeof ShippingGroup>;
export type ShippingOption = Static<typeof ShippingOption>;
export type Shipping = Static<typeof Shipping>;

/** The address a user ships to, as the payment shows it (`shippingDetails.address`, `userDetails.addresses[]`). */
export type ShippingAddress = PaymentAddress;

/** What the user chose, stored on the payment at approval: `shippingDetails` as GET shows it. */
export interface ShippingDetails {
  address: ShippingAddress;
  shippingOptionId: string;
  shippingOptionName: string;
  /** Minor units, in the payment's currency: an integer, as ePayment's other minor-unit fields on the wire. */
  shippingCost: number;
}
