import type { Currency } from '../payments/payment.entity.js';

/** The checkout API's shapes (FACTS §8, `OA/checkout-v3.yaml#/components/schemas`), as stored and shown. */

export interface CheckoutAmount {
  value: number;
  currency: Currency;
}

export const ELEMENTS = ['Full', 'PaymentAndContactInfo', 'PaymentOnly'] as const;
export type Elements = (typeof ELEMENTS)[number];

export const BRANDS = ['POSTEN', 'POSTNORD', 'PORTERBUDDY', 'INSTABOX', 'HELTHJEM', 'OTHER'] as const;
export type Brand = (typeof BRANDS)[number];

/** The `type` each brand allows (FACTS §8); OTHER has none and needs a `title`. */
export const BRAND_TYPES: Readonly<Record<Brand, readonly string[]>> = {
  POSTEN: ['MAILBOX', 'PICKUP_POINT', 'HOME_DELIVERY'],
  POSTNORD: ['PICKUP_POINT', 'HOME_DELIVERY'],
  PORTERBUDDY: ['HOME_DELIVERY'],
  INSTABOX: ['HOME_DELIVERY', 'PICKUP_POINT'],
  HELTHJEM: ['HOME_DELIVERY', 'PICKUP_POINT'],
  OTHER: [],
};

export const LOGISTICS_TYPES = ['MAILBOX', 'PICKUP_POINT', 'HOME_DELIVERY'] as const;

export interface LogisticsOption {
  brand: Brand;
  type?: string;
  customType?: string;
  title?: string;
  amount?: CheckoutAmount;
  id: string;
  priority: number;
  isDefault: boolean;
  description?: string;
}

export interface MerchantInfo {
  callbackUrl: string;
  returnUrl: string;
  callbackAuthorizationToken: string;
  termsAndConditionsUrl?: string;
}

export interface CarrierOrigin {
  name: string;
  email: string;
  phoneNumber: string;
  address: { streetAddress: string; postalCode: string; city: string; country: string };
}

export interface Integrations {
  porterbuddy?: { publicToken: string; apiKey: string; origin: CarrierOrigin };
  instabox?: { clientId: string; clientSecret: string };
  helthjem?: { username: string; password: string; shopId: number };
}

export interface Logistics {
  dynamicOptionsCallback?: string;
  fixedOptions?: LogisticsOption[];
  integrations?: Integrations;
}

export interface PrefillCustomer {
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  streetAddress?: string;
  city?: string;
  postalCode?: string;
  country?: string;
}

export interface CheckoutConfiguration {
  customerInteraction?: 'CUSTOMER_PRESENT' | 'CUSTOMER_NOT_PRESENT';
  elements?: Elements;
  countries?: { supported: string[] };
  userFlow?: 'WEB_REDIRECT' | 'NATIVE_REDIRECT';
  requireUserInfo?: boolean;
  customConsent?: { text: string; required: boolean };
  showOrderSummary?: boolean;
}

export interface OrderLine {
  name: string;
  id: string;
  totalAmount: number;
  totalAmountExcludingTax: number;
  totalTaxAmount: number;
  /** One of the two, in whole percent or hundredths of a percent (order-line-tax.ts). */
  taxPercentage?: number;
  taxRate?: number;
  unitInfo?: { unitPrice: number; quantity: string; quantityUnit: string };
  discount?: number;
  productUrl?: string;
  isReturn?: boolean;
  isShipping?: boolean;
}

export interface OrderSummary {
  orderLines: OrderLine[];
  orderBottomLine: Record<string, unknown> & { currency: string };
}

/** What `POST /checkout/v3/session` asks for, every rule passed. */
export interface CheckoutSessionRequest {
  merchantInfo: MerchantInfo;
  transaction: { amount: CheckoutAmount; reference: string; paymentDescription: string; orderSummary?: OrderSummary };
  logistics?: Logistics;
  prefillCustomer?: PrefillCustomer;
  configuration?: CheckoutConfiguration;
}

/** The address the buyer typed, as the dynamic options callback receives it. */
export interface SessionAddress {
  streetAddress: string;
  postalCode: string;
  city: string;
  region: string;
  country: string;
}

/** The options the buyer was offered for its address, and where they came from. */
export interface OfferedShipping {
  source: 'dynamic' | 'fixed' | 'none';
  options: LogisticsOption[];
}

export interface ContactDetails {
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string;
}

export interface BillingDetails extends ContactDetails {
  streetAddress?: string | null;
  postalCode?: string | null;
  city?: string | null;
  country?: string | null;
}

export interface ShippingDetails extends BillingDetails {
  shippingMethodId?: string | null;
  amount?: CheckoutAmount | null;
}
