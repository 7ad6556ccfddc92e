import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { Receipt } from '../orders/receipt.schemas.js';
import { Shipping } from './express-shipping.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { compileSchema } from '../platform/validation/compiled-schema.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { TEST_USER_PHONE_PATTERN } from '../user-profiles/phone-number.js';
import type { CreatePaymentCommand, CreatePaymentFields, ForceApproveCommand, Money } from './payment.commands.js';
import {
  createPaymentCrossFieldProblems,
  createPaymentFieldProblems,
  CURRENCIES,
  customerProblem,
  CUSTOMER_INTERACTIONS,
  MAX_AMOUNT,
  MIN_AMOUNT,
  PAYMENT_METHODS,
  PHONE_NUMBER_PATTERN,
  QR_FORMATS,
  REFERENCE_PATTERN,
  toCreatePaymentCommand,
  USER_FLOWS,
  withoutIgnoredParts,
} from './payment.rules.js';

/**
 * The ePayment request bodies (FACTS §1.1, §1.2; `OA/epayment-v1.yaml#/components/schemas`), declared once as
 * JSON Schema: REST checks its bodies against them and publishes them, and the graph's create input is checked
 * against the same field declarations.
 */

const Reference = Type.String({
  pattern: REFERENCE_PATTERN.source,
  [REASONS]: { pattern: 'Must match 8 to 50 letters, digits or "-"' },
});

const Amount = Type.Object({
  currency: stringEnum(CURRENCIES),
  value: Type.Integer({ minimum: MIN_AMOUNT, maximum: MAX_AMOUNT }),
});

const Customer = Type.Object({
  phoneNumber: Type.Optional(
    Type.String({
      pattern: PHONE_NUMBER_PATTERN.source,
      [REASONS]: { pattern: 'Must match 10 to 15 digits including the country code, no plus sign' },
    }),
  ),
  personalQr: Type.Optional(Type.String({ minLength: 5, maxLength: 255 })),
  customerToken: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

/** `https://` or a custom app scheme: the scheme rule is in payment.rules.ts, since JSON Schema cannot say it. */
const AppUrl = Type.String({ maxLength: 2048 });

const IndustryData = Type.Object({
  airlineData: Type.Optional(
    Type.Object({
      agencyInvoiceNumber: Type.String({ minLength: 1, maxLength: 6 }),
      airlineCode: Type.String({ pattern: '^[0-9]{3}$', [REASONS]: { pattern: 'Must match exactly 3 digits (IATA numeric code)' } }),
      airlineDesignatorCode: Type.String({
        pattern: '^[A-Za-z0-9]{2}$',
        [REASONS]: { pattern: 'Must match exactly 2 characters (IATA designator)' },
      }),
      passengerName: Type.String({ minLength: 1, maxLength: 49 }),
      ticketNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 150 })),
    }),
  ),
});

/**
 * Its limits (5 pairs, keys of 100 and values of 500 characters, no key twice) are refusals with codes 4100-4130
 * (FACTS §14.3), in payment.rules.ts, not shape failures.
 */
const Metadata = Type.Record(Type.String(), Type.String(), {
  description:
    'At most 5 pairs (4100), no key twice (4110), keys of at most 100 characters (4120), values of at most 500 characters (4130).',
  [REASONS]: { type: 'Must be an object of string values' },
});

/** Space-separated words of `PROFILE_SCOPES`; which words is a rule in payment.rules.ts. */
const ProfileScope = Type.String({ minLength: 1, maxLength: 200 });

const ExpiresAt = Type.String({ format: 'date-time', [REASONS]: { format: 'Must be an RFC 3339 date-time such as 2026-12-01T12:00:00Z' } });

const QrFormat = Type.Object({
  format: stringEnum(QR_FORMATS),
  size: Type.Optional(Type.Integer({ minimum: 100, maximum: 2000 })),
});

/**
 * A create's fields, declared once for both faces: they differ only in how they name the payment method (REST
 * `paymentMethod.type`, the graph `paymentMethod`) and the profile's scope (REST `profile.scope`, the graph
 * `profileScope`), given here in their places.
 */
function createPaymentShape<Method extends TSchema, Profile extends TProperties>(paymentMethod: Method, profile: Profile) {
  return {
    reference: Reference,
    amount: Amount,
    paymentMethod,
    userFlow: stringEnum(USER_FLOWS),
    customer: Type.Optional(Customer),
    customerInteraction: Type.Optional(stringEnum(CUSTOMER_INTERACTIONS)),
    returnUrl: Type.Optional(AppUrl),
    receiptUrl: Type.Optional(AppUrl),
    paymentDescription: Type.Optional(Type.String({ minLength: 3, maxLength: 100 })),
    receipt: Type.Optional(Receipt),
    industryData: Type.Optional(IndustryData),
    metadata: Type.Optional(Metadata),
    ...profile,
    // FACTS §14.4: an integer 0..100 or null (WooCommerce sends null); the user approving must be at least this old.
    minimumUserAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    qrFormat: Type.Optional(QrFormat),
    expiresAt: Type.Optional(ExpiresAt),
    shipping: Type.Optional(Shipping),
  };
}

const CreatePaymentRequest = Type.Object(
  createPaymentShape(Type.Object({ type: stringEnum(PAYMENT_METHODS) }), {
    profile: Type.Optional(Type.Object({ scope: Type.Optional(ProfileScope) })),
  }),
  { [REASONS]: { type: 'A JSON object is required' } },
);

/** `POST /epayment/v1/payments`. The refusals that need the clock and environment follow in `refuseCreatePayment`. */
export const createPaymentBody: BodyShape<CreatePaymentCommand> = declareBody(CreatePaymentRequest, {
  read: withoutIgnoredParts,
  fieldRules: (body, details) => createPaymentFieldProblems(restFields(body, details)),
  crossFieldRules: (body, schemaDetails, details) => createPaymentCrossFieldProblems(restFields(body, schemaDetails), details),
  toCommand: (body) => toCreatePaymentCommand(restFields(body, []) as CreatePaymentFields),
});

/** The REST body flattened to the fields both faces share. */
function restFields(body: Static<typeof CreatePaymentRequest>, refused: readonly ErrorDetail[]): Partial<CreatePaymentFields> {
  if (!isJsonObject(body)) return {};
  const { paymentMethod, profile, ...rest } = body;
  const fields = { ...rest, paymentMethod: paymentMethod?.type, profileScope: profile?.scope };
  return withoutRefused(fields, refused, { paymentMethod: 'paymentMethod', profileScope: 'profile' });
}

/** Values whose refused parts leave the rest meaningful to the rules about which flows allow them. */
const DOCUMENTS = new Set(['receipt', 'industryData', 'metadata']);
/** Optional parts whose refusal leaves their value meaningful: a QR format with a bad size is still a QR format. */
const OPTIONAL_PARTS = new Set(['qrFormat.size']);

/**
 * Leaves out the fields the rules must not look at: a field refused itself, or a value made of checked parts
 * (an amount, a customer, a QR format) with a refused part, as the hand-written checks left them out before.
 */
function withoutRefused(
  fields: Partial<CreatePaymentFields>,
  refused: readonly ErrorDetail[],
  names: Partial<Record<keyof CreatePaymentFields, string>> = {},
): Partial<CreatePaymentFields> {
  const kept = { ...fields };
  for (const key of Object.keys(kept) as (keyof CreatePaymentFields)[]) {
    const name = names[key] ?? key;
    const inside = (detail: string) => detail.startsWith(`${name}.`) || detail.startsWith(`${name}[`);
    const hit = refused.some(
      ({ name: detail }) => detail === name || (inside(detail) && !DOCUMENTS.has(name) && !OPTIONAL_PARTS.has(detail)),
    );
    if (hit || kept[key] === undefined) delete kept[key];
  }
  return kept;
}

/** The graph's create input, mapped to the shared fields, checked against the same declarations and rules. */
const CreatePaymentFieldsSchema = Type.Object(
  createPaymentShape(stringEnum(PAYMENT_METHODS), { profileScope: Type.Optional(ProfileScope) }),
);
const createPaymentFields = compileSchema(CreatePaymentFieldsSchema);

/** The graph's create: every failing field named at once, as REST names it where the two share a field. */
export function parseCreatePaymentFields(fields: CreatePaymentFields): CreatePaymentCommand {
  const { value, details } = createPaymentFields.check(withoutIgnoredParts(fields));
  const all = createPaymentFields.sort([...details, ...createPaymentFieldProblems(withoutRefused(value, details))]);
  all.push(...createPaymentCrossFieldProblems(withoutRefused(value, details), all));
  if (all.length > 0) throw AppError.validation(all);
  return toCreatePaymentCommand(value);
}

const ModificationRequest = Type.Object({ modificationAmount: Amount });

/** Capture and refund: `{modificationAmount}`. No body, or not an object, is a missing amount. */
export const modificationBody: BodyShape<Money> = declareBody(ModificationRequest, {
  read: (raw) => (isJsonObject(raw) ? raw : {}),
  toCommand: (body) => body.modificationAmount,
});

const money = compileSchema(Amount);

/** An amount the graph names by its own argument path (`amount`), checked as the REST bodies check theirs. */
export function parseMoney(raw: Money, at: string): Money {
  const { value, details } = money.check(raw, at);
  if (details.length > 0) throw AppError.validation(details);
  return value;
}

/** Force approve names a test user as the wallet pages do: the 8-digit test numbers too (issue 19). */
const ForceApproveCustomer = Type.Object({
  ...Customer.properties,
  phoneNumber: Type.Optional(
    Type.String({
      pattern: TEST_USER_PHONE_PATTERN.source,
      [REASONS]: { pattern: 'Must be a test user’s phone number: 8 digits, or 10 to 15 digits including the country code' },
    }),
  ),
});

const ForceApproveRequest = Type.Object(
  { customer: Type.Optional(ForceApproveCustomer), token: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { [REASONS]: { type: 'Must be a JSON object' } },
);

/** Test only: `POST /epayment/v1/test/payments/{reference}/approve`, `{customer?, token?}`; no body approves as is. */
export const forceApproveBody: BodyShape<ForceApproveCommand> = declareBody(ForceApproveRequest, {
  read: (raw) => raw ?? {},
  fieldRules: (body, details) => {
    const problem =
      isJsonObject(body) && body.customer && !details.some((d) => d.name.startsWith('customer')) && customerProblem(body.customer);
    return problem ? [problem] : [];
  },
  toCommand: (body) => body,
});
