import type { Shipping } from './express-shipping.js';
import type { Currency, CustomerInteraction, PaymentMethodType, QrImageFormat, UserFlow } from './payment.entity.js';

type Json = Record<string, unknown>;

export interface Money {
  currency: Currency;
  value: number;
}

export interface Customer {
  phoneNumber?: string;
  personalQr?: string;
  customerToken?: string;
}

/**
 * A create request as both faces read it, before the cross-field rules: REST flattens its body into this
 * (`paymentMethod.type`, `profile.scope`), the graph maps its input into it. Field names follow the REST body,
 * so a rule names the same field on both faces.
 */
export interface CreatePaymentFields {
  reference: string;
  amount: Money;
  paymentMethod: PaymentMethodType;
  userFlow: UserFlow;
  customer?: Customer;
  customerInteraction?: CustomerInteraction;
  returnUrl?: string;
  receiptUrl?: string;
  paymentDescription?: string;
  receipt?: Json;
  industryData?: Json;
  metadata?: Record<string, string>;
  profileScope?: string;
  /** The youngest user who may approve, in whole years on the sales unit's clock (FACTS §14.4). */
  minimumUserAge?: number;
  /** RFC 3339 text. */
  expiresAt?: string;
  qrFormat?: { format: QrImageFormat; size?: number };
  /** Express (FACTS §14.1): the user chooses address and shipping in the wallet. */
  shipping?: Shipping;
}

/** What the payment service creates: every field checked and every rule passed. */
export interface CreatePaymentCommand extends Omit<CreatePaymentFields, 'customerInteraction' | 'expiresAt'> {
  customerInteraction: CustomerInteraction;
  /** `metadata` keys the request wrote more than once (refused, 4110); absent when none. */
  metadataDuplicateKeys?: readonly string[];
  /** Explicit expiry of a long-living payment. */
  expiresAt?: Date;
}

export interface ForceApproveCommand {
  customer?: Customer;
  token?: string;
}
