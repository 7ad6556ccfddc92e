import { withoutNulls } from '../platform/validation/without-nulls.js';
import Type, { type Static } from 'typebox';
import type { ErrorDetail } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { orderLineTax, orderLineTaxProblems } from '../orders/order-line-tax.js';
import { compileSchema } from '../platform/validation/compiled-schema.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { CURRENCIES, CUSTOMER_INTERACTIONS, MAX_AMOUNT, MIN_AMOUNT, REFERENCE_PATTERN } from '../payments/payment.rules.js';
import {
  BRANDS,
  BRAND_TYPES,
  ELEMENTS,
  LOGISTICS_TYPES,
  type CheckoutSessionRequest,
  type LogisticsOption,
} from './checkout-session.types.js';

/**
 * The checkout session request (FACTS §8, `OA/checkout-v3.yaml#/components/schemas/InitiateSessionRequest`),
 * declared once: REST checks its body against it and publishes it, the graph's input is checked against the same.
 * Rules no schema can say (brand/type pairs, one default option, OTHER's title) follow as field rules. A `null`
 * reads as an absent field, as the public definition marks the optional parts nullable.
 */

/** An international phone number: country code first, 10 to 15 digits, an optional leading `+` (MSISDN). */
export const INTERNATIONAL_PHONE_PATTERN = /^\+?[0-9]{10,15}$/;
export const COUNTRY_PATTERN = /^[A-Z]{2}$/;

const Country = Type.String({
  pattern: COUNTRY_PATTERN.source,
  [REASONS]: { pattern: 'Must be a two-letter country code (ISO 3166-1 alpha-2)' },
});
const Text = (max = 200) => Type.String({ minLength: 1, maxLength: max });
const Url = Type.String({ minLength: 1, maxLength: 2048 });

const TransactionAmount = Type.Object({
  value: Type.Integer({ minimum: MIN_AMOUNT, maximum: MAX_AMOUNT }),
  currency: stringEnum(CURRENCIES),
});
const OptionAmount = Type.Object({
  value: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT }),
  currency: stringEnum(CURRENCIES),
});

export const LogisticsOptionSchema = Type.Object({
  brand: stringEnum(BRANDS),
  type: Type.Optional(stringEnum(LOGISTICS_TYPES)),
  customType: Type.Optional(Text(200)),
  title: Type.Optional(Text(200)),
  amount: Type.Optional(OptionAmount),
  id: Type.String({ minLength: 1, maxLength: 200 }),
  priority: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
  isDefault: Type.Boolean(),
  description: Type.Optional(Type.String({ maxLength: 500 })),
});

const Origin = Type.Object({
  name: Text(),
  email: Text(255),
  phoneNumber: Type.String({
    pattern: INTERNATIONAL_PHONE_PATTERN.source,
    [REASONS]: { pattern: 'Must be an international phone number (MSISDN)' },
  }),
  address: Type.Object({ streetAddress: Text(), postalCode: Text(20), city: Text(), country: Country }),
});

const Integrations = Type.Object({
  porterbuddy: Type.Optional(Type.Object({ publicToken: Type.String({ maxLength: 2000 }), apiKey: Text(2000), origin: Origin })),
  instabox: Type.Optional(Type.Object({ clientId: Text(500), clientSecret: Text(500) })),
  helthjem: Type.Optional(
    Type.Object({ username: Text(500), password: Text(500), shopId: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }) }),
  ),
});

const OrderLine = Type.Object({
  name: Text(2048),
  id: Text(255),
  totalAmount: Type.Integer({ minimum: 0 }),
  totalAmountExcludingTax: Type.Integer({ minimum: 0 }),
  totalTaxAmount: Type.Integer({ minimum: 0 }),
  ...orderLineTax,
  unitInfo: Type.Optional(
    Type.Object({
      unitPrice: Type.Integer({ minimum: 0 }),
      quantity: Text(50),
      quantityUnit: stringEnum(['PCS', 'KG', 'KM', 'MINUTE', 'LITRE'] as const),
    }),
  ),
  discount: Type.Optional(Type.Integer({ minimum: 0 })),
  productUrl: Type.Optional(Url),
  isReturn: Type.Optional(Type.Boolean()),
  isShipping: Type.Optional(Type.Boolean()),
});

export const OrderSummarySchema = Type.Object({
  orderLines: Type.Array(OrderLine, { minItems: 1, maxItems: 1000 }),
  orderBottomLine: Type.Object({
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    tipAmount: Type.Optional(Type.Integer({ minimum: 0 })),
    giftCardAmount: Type.Optional(Type.Integer({ minimum: 0 })),
    terminalId: Type.Optional(Text(200)),
    receiptNumber: Type.Optional(Text(200)),
    paymentSources: Type.Optional(
      Type.Object({
        giftCard: Type.Optional(Type.Integer({ minimum: 0 })),
        card: Type.Optional(Type.Integer({ minimum: 0 })),
        voucher: Type.Optional(Type.Integer({ minimum: 0 })),
        cash: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
    ),
  }),
});

export const CheckoutSessionRequestSchema = Type.Object(
  {
    merchantInfo: Type.Object({
      callbackUrl: Url,
      returnUrl: Url,
      callbackAuthorizationToken: Type.String({ minLength: 1, maxLength: 2000 }),
      termsAndConditionsUrl: Type.Optional(Url),
    }),
    transaction: Type.Object({
      amount: TransactionAmount,
      reference: Type.String({ pattern: REFERENCE_PATTERN.source, [REASONS]: { pattern: 'Must match 8 to 50 letters, digits or "-"' } }),
      paymentDescription: Type.String({ minLength: 3, maxLength: 100 }),
      orderSummary: Type.Optional(OrderSummarySchema),
    }),
    logistics: Type.Optional(
      Type.Object({
        dynamicOptionsCallback: Type.Optional(Url),
        fixedOptions: Type.Optional(Type.Array(LogisticsOptionSchema, { maxItems: 100 })),
        integrations: Type.Optional(Integrations),
      }),
    ),
    prefillCustomer: Type.Optional(
      Type.Object({
        firstName: Type.Optional(Text()),
        lastName: Type.Optional(Text()),
        email: Type.Optional(Type.String({ maxLength: 255, format: 'email', [REASONS]: { format: 'Must be an email address' } })),
        phoneNumber: Type.Optional(
          Type.String({
            pattern: INTERNATIONAL_PHONE_PATTERN.source,
            [REASONS]: { pattern: 'Must be an international phone number (MSISDN), e.g. 4791234567' },
          }),
        ),
        streetAddress: Type.Optional(Text()),
        city: Type.Optional(Text()),
        postalCode: Type.Optional(Text(20)),
        country: Type.Optional(Country),
      }),
    ),
    configuration: Type.Optional(
      Type.Object({
        customerInteraction: Type.Optional(stringEnum(CUSTOMER_INTERACTIONS)),
        elements: Type.Optional(stringEnum(ELEMENTS)),
        countries: Type.Optional(Type.Object({ supported: Type.Array(Country, { minItems: 1, maxItems: 250 }) })),
        userFlow: Type.Optional(stringEnum(['WEB_REDIRECT', 'NATIVE_REDIRECT'] as const)),
        requireUserInfo: Type.Optional(Type.Boolean()),
        customConsent: Type.Optional(Type.Object({ text: Type.String({ minLength: 1, maxLength: 1000 }), required: Type.Boolean() })),
        showOrderSummary: Type.Optional(Type.Boolean()),
      }),
    ),
  },
  { [REASONS]: { type: 'A JSON object is required' } },
);

type RawRequest = Static<typeof CheckoutSessionRequestSchema>;

/** One option's rules the schema cannot say: the brand's types, OTHER's title, an amount for every brand but PORTERBUDDY. */
export function logisticsOptionProblems(option: Partial<LogisticsOption>, at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  // A brand outside the list is the schema's to refuse; the rules below read only a known one.
  if (typeof option.brand !== 'string' || !Object.hasOwn(BRAND_TYPES, option.brand)) return details;
  const types = BRAND_TYPES[option.brand];
  if (typeof option.type === 'string' && !types.includes(option.type)) {
    details.push({
      name: `${at}.type`,
      reason: types.length ? `Brand ${option.brand} allows type ${types.join(', ')}` : `Brand ${option.brand} takes no type`,
    });
  }
  if (option.brand === 'OTHER' && !option.title) details.push({ name: `${at}.title`, reason: 'Required for brand OTHER' });
  if (option.brand !== 'OTHER' && option.title !== undefined) details.push({ name: `${at}.title`, reason: 'Only brand OTHER has a title' });
  if (option.brand !== 'PORTERBUDDY' && option.amount === undefined) details.push({ name: `${at}.amount`, reason: 'Required' });
  return details;
}

/** The list's rules: one default at most, ids unique. */
export function logisticsListProblems(options: readonly Partial<LogisticsOption>[], at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  options.forEach((option, i) => details.push(...logisticsOptionProblems(option, `${at}[${i}]`)));
  if (options.filter((o) => o.isDefault === true).length > 1) details.push({ name: at, reason: 'At most one option may be isDefault' });
  const ids = options.map((o) => o.id).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) details.push({ name: at, reason: 'Option ids must be unique' });
  return details;
}

function absoluteUrlProblem(value: string | undefined, name: string): ErrorDetail[] {
  if (value === undefined) return [];
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return [{ name, reason: 'Must be an http(s) URL' }];
    return [];
  } catch {
    return [{ name, reason: 'Must be a valid absolute URL' }];
  }
}

function fieldRules(body: RawRequest): ErrorDetail[] {
  if (!isJsonObject(body)) return [];
  const details: ErrorDetail[] = [];
  const info = isJsonObject(body.merchantInfo) ? body.merchantInfo : undefined;
  details.push(...absoluteUrlProblem(typeof info?.returnUrl === 'string' ? info.returnUrl : undefined, 'merchantInfo.returnUrl'));
  details.push(
    ...absoluteUrlProblem(
      typeof info?.termsAndConditionsUrl === 'string' ? info.termsAndConditionsUrl : undefined,
      'merchantInfo.termsAndConditionsUrl',
    ),
  );
  const transaction = isJsonObject(body.transaction) ? body.transaction : undefined;
  const summary = isJsonObject(transaction?.orderSummary) ? transaction.orderSummary : undefined;
  details.push(...orderLineTaxProblems(summary?.orderLines, 'transaction.orderSummary.orderLines'));
  const logistics = isJsonObject(body.logistics) ? body.logistics : undefined;
  if (Array.isArray(logistics?.fixedOptions)) {
    const options = logistics.fixedOptions.filter(isJsonObject) as Partial<LogisticsOption>[];
    details.push(...logisticsListProblems(options, 'logistics.fixedOptions'));
  }
  return details;
}

function crossFieldRules(body: RawRequest, schemaDetails: readonly ErrorDetail[]): ErrorDetail[] {
  if (!isJsonObject(body) || schemaDetails.length > 0) return [];
  const details: ErrorDetail[] = [];
  const currency = body.transaction.amount.currency;
  body.logistics?.fixedOptions?.forEach((option, i) => {
    if (option.amount && option.amount.currency !== currency) {
      details.push({ name: `logistics.fixedOptions[${i}].amount.currency`, reason: `Must be the transaction's currency ${currency}` });
    }
  });
  const elements = body.configuration?.elements ?? 'Full';
  if (elements !== 'Full' && (body.logistics?.dynamicOptionsCallback || body.logistics?.integrations)) {
    details.push({ name: 'logistics', reason: `Shipping needs the address fields: elements ${elements} asks for no address` });
  }
  const supported = body.configuration?.countries?.supported;
  const prefillCountry = body.prefillCustomer?.country;
  if (supported && prefillCountry && !supported.includes(prefillCountry)) {
    details.push({ name: 'prefillCustomer.country', reason: 'Not one of configuration.countries.supported' });
  }
  return details;
}

/** `POST /checkout/v3/session`: every failing field named at once. The URL policy (async) follows in the service. */
export const createSessionBody: BodyShape<CheckoutSessionRequest> = declareBody(CheckoutSessionRequestSchema, {
  read: withoutNulls,
  fieldRules: (body) => fieldRules(body),
  crossFieldRules: (body, schemaDetails) => crossFieldRules(body, schemaDetails),
  toCommand: (body) => body as CheckoutSessionRequest,
});

const optionList = compileSchema(Type.Array(LogisticsOptionSchema, { minItems: 1, maxItems: 100 }));

/** The dynamic options callback's answer, checked as fixed options are; undefined when it is not a usable list. */
export function parseDynamicOptions(raw: unknown, currency: string): LogisticsOption[] | undefined {
  const value = withoutNulls(raw);
  const { details } = optionList.check(value);
  if (details.length > 0) return undefined;
  const options = value as LogisticsOption[];
  if (logisticsListProblems(options, 'options').length > 0) return undefined;
  if (options.some((o) => o.amount && o.amount.currency !== currency)) return undefined;
  return options;
}
