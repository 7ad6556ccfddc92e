import Type from 'typebox';
import type { ErrorDetail } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { CURRENCIES, MAX_AMOUNT, MIN_AMOUNT } from '../payments/payment.rules.js';
import { LogisticsOptionSchema, OrderSummarySchema, logisticsListProblems } from './checkout-session.schemas.js';
import { withoutNulls } from '../platform/validation/without-nulls.js';
import type { CheckoutAmount, LogisticsOption, OrderSummary } from './checkout-session.types.js';

/**
 * `PATCH /checkout/v3/session/{reference}`, which no public definition we hold describes: the body the WooCommerce
 * plugin (6.0.5, `checkout_modify_session`) sends when the order changes while the buyer is on the checkout page,
 * `{transaction: {amount, paymentDescription, orderSummary}, logisticOptions}`. Every part is optional; what is
 * sent replaces what the session had, and `logisticOptions` replaces the shipping options the buyer chooses from.
 */
export const UpdateSessionSchema = Type.Object(
  {
    transaction: Type.Optional(
      Type.Object({
        amount: Type.Optional(
          Type.Object({ value: Type.Integer({ minimum: MIN_AMOUNT, maximum: MAX_AMOUNT }), currency: stringEnum(CURRENCIES) }),
        ),
        paymentDescription: Type.Optional(Type.String({ minLength: 3, maxLength: 100 })),
        orderSummary: Type.Optional(OrderSummarySchema),
      }),
    ),
    logisticOptions: Type.Optional(Type.Array(LogisticsOptionSchema, { maxItems: 100 })),
  },
  { [REASONS]: { type: 'A JSON object is required' } },
);

/** What the merchant changes; absent parts stay as they are. */
export interface CheckoutSessionUpdate {
  amount?: CheckoutAmount;
  paymentDescription?: string;
  orderSummary?: OrderSummary;
  logisticOptions?: LogisticsOption[];
}

function fieldRules(body: unknown): ErrorDetail[] {
  if (!isJsonObject(body) || !Array.isArray(body.logisticOptions)) return [];
  return logisticsListProblems(body.logisticOptions.filter(isJsonObject) as Partial<LogisticsOption>[], 'logisticOptions');
}

function crossFieldRules(body: unknown, schemaDetails: readonly ErrorDetail[]): ErrorDetail[] {
  if (!isJsonObject(body) || schemaDetails.length > 0) return [];
  if (body.transaction === undefined && body.logisticOptions === undefined) {
    return [{ name: 'transaction', reason: 'Send transaction or logisticOptions: there is nothing to change' }];
  }
  return [];
}

export const updateSessionBody: BodyShape<CheckoutSessionUpdate> = declareBody(UpdateSessionSchema, {
  read: withoutNulls,
  fieldRules: (body) => fieldRules(body),
  crossFieldRules: (body, schemaDetails) => crossFieldRules(body, schemaDetails),
  toCommand: (body) => {
    const update: CheckoutSessionUpdate = {};
    if (body.transaction?.amount) update.amount = body.transaction.amount as CheckoutAmount;
    if (body.transaction?.paymentDescription !== undefined) update.paymentDescription = body.transaction.paymentDescription;
    if (body.transaction?.orderSummary) update.orderSummary = body.transaction.orderSummary as OrderSummary;
    if (body.logisticOptions) update.logisticOptions = body.logisticOptions as LogisticsOption[];
    return update;
  },
});
