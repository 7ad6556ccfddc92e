import type { PaygraphEnv } from '../config.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import type { CreatePaymentCommand, CreatePaymentFields, Customer, Money } from './payment.commands.js';
import type { Currency, CustomerInteraction, PaymentMethodType, QrImageFormat, UserFlow } from './payment.entity.js';
import { orderLineTaxProblems } from '../orders/order-line-tax.js';
import { shippingProblems } from './express.rules.js';
import { duplicateKeysOf } from '../platform/validation/json-text.js';

/**
 * The ePayment rules (FACTS §1.2): the limits the request shapes declare and the rules that weigh one field against
 * another, which both faces apply to what they read, and the refusals with their public titles, which the payment
 * service applies to every create. Neither face repeats one.
 */

export const CURRENCIES = ['NOK', 'DKK', 'EUR'] as const satisfies readonly Currency[];
export const USER_FLOWS = ['PUSH_MESSAGE', 'NATIVE_REDIRECT', 'WEB_REDIRECT', 'QR'] as const satisfies readonly UserFlow[];
export const PAYMENT_METHODS = ['WALLET', 'CARD'] as const satisfies readonly PaymentMethodType[];
export const CUSTOMER_INTERACTIONS = ['CUSTOMER_PRESENT', 'CUSTOMER_NOT_PRESENT'] as const satisfies readonly CustomerInteraction[];
export const QR_FORMATS = ['TEXT/TARGETURL', 'IMAGE/SVG+XML', 'IMAGE/PNG'] as const satisfies readonly QrImageFormat[];
/**
 * The ePayment definition lists the first six; `accountNumbers` (the deprecated `accounts` claim) is the seventh that
 * TEST-ENVIRONMENT.md documents as a scope a payment may ask for.
 */
export const PROFILE_SCOPES = ['name', 'address', 'email', 'phoneNumber', 'birthDate', 'nin', 'accountNumbers'] as const;
export const REFERENCE_PATTERN = /^[a-zA-Z0-9-]{8,50}$/;
export const PHONE_NUMBER_PATTERN = /^\d{10,15}$/;
/** Largest payment or modification amount in minor units (FACTS §1.2). */
export const MAX_AMOUNT = 65_000_000;
/** The schema allows 0, but a payment or modification of nothing can never move money: 1 minor unit at least. */
export const MIN_AMOUNT = 1;
/** Smallest payable NOK amount ("Amount too small", FACTS §1.2). */
const MIN_NOK_AMOUNT = 100;
/** The public definition's `Idempotency-Key` maxLength (FACTS §1.1). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 50;
const MINUTE = 60_000;
/** A long-living payment expires more than 10 minutes (6120) and at most 60 days ahead (6110, FACTS §14.4). */
const MIN_LONG_LIVING_MS = 10 * MINUTE;
const MAX_LONG_LIVING_MS = 60 * 24 * 60 * MINUTE;
/** ePayment's metadata limits (FACTS §14.3, §14.4). */
export const METADATA_LIMITS = { pairs: 5, keyLength: 100, valueLength: 500 } as const;

/** A payment reference named outside a body (a path or an argument): malformed is a bad request, not an unknown payment. */
export function checkReference(reference: string): string {
  if (!REFERENCE_PATTERN.test(reference)) {
    throw AppError.validation([{ name: 'reference', reason: 'Must be 8 to 50 letters, digits or "-"' }]);
  }
  return reference;
}

/** The graph's `idempotencyKey` argument; REST reads the same limit from its header. */
export function checkIdempotencyKey(key: string): string {
  if (key.trim() === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw AppError.validation([{ name: 'idempotencyKey', reason: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` }]);
  }
  return key;
}

/** `https://` or a custom app scheme (`myapp://`), as the public definition allows for return and receipt URLs. */
export function isHttpsOrAppUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') return url.hostname !== '';
  return scheme !== 'http' && /^[a-z][a-z0-9+.-]*$/.test(scheme) && !['javascript', 'data', 'file', 'vbscript'].includes(scheme);
}

/** Exactly one of `phoneNumber`, `personalQr`, `customerToken` (FACTS §1.2). */
export function customerProblem(customer: Customer): ErrorDetail | undefined {
  const given = (['phoneNumber', 'personalQr', 'customerToken'] as const).filter((k) => customer[k] !== undefined);
  if (given.length === 1) return undefined;
  return {
    name: 'customer',
    reason: given.length === 0 ? 'Give one of phoneNumber, personalQr or customerToken' : `Give only one of ${given.join(', ')}`,
  };
}

function isReceiptLike(receipt: unknown): receipt is { orderLines?: unknown } {
  return typeof receipt === 'object' && receipt !== null;
}

/**
 * A customer without any identifier (`{customerInteraction: ...}` only, `{phoneNumber: null}`) names nobody: the
 * platform takes it as no customer, and WooCommerce's express checkout sends one on every order.
 */
export function namesCustomer(customer: Customer | undefined): customer is Customer {
  return customer !== undefined && (['phoneNumber', 'personalQr', 'customerToken'] as const).some((k) => customer[k] !== undefined);
}

/**
 * What a create's fields mean before any check, as the platform reads them: a `qrFormat.size` with a format other
 * than PNG is ignored (an SVG has no pixel size), not refused. Applied to the REST body and the graph's input alike.
 */
export function withoutIgnoredParts<T>(fields: T): T {
  if (typeof fields !== 'object' || fields === null) return fields;
  const qrFormat = (fields as { qrFormat?: unknown }).qrFormat;
  if (typeof qrFormat !== 'object' || qrFormat === null || !('size' in qrFormat)) return fields;
  if ((qrFormat as { format?: unknown }).format === 'IMAGE/PNG') return fields;
  const { size: _ignored, ...format } = qrFormat as Record<string, unknown>;
  return { ...fields, qrFormat: format };
}

/**
 * The rules of one create field each that a schema cannot say, over the fields that passed their shape. Each
 * failure names its field as the REST body does.
 */
export function createPaymentFieldProblems(fields: Partial<CreatePaymentFields>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const customer = namesCustomer(fields.customer) && customerProblem(fields.customer);
  if (customer) problems.push(customer);
  for (const name of ['returnUrl', 'receiptUrl'] as const) {
    const url = fields[name];
    if (url !== undefined && !isHttpsOrAppUrl(url)) problems.push({ name, reason: 'Must be an https:// URL or a custom app URL scheme' });
  }
  if (isReceiptLike(fields.receipt)) problems.push(...orderLineTaxProblems(fields.receipt.orderLines, 'receipt.orderLines'));
  if (fields.profileScope !== undefined) {
    const words = fields.profileScope.split(' ').filter((w) => w !== '');
    const unknown = words.filter((w) => !(PROFILE_SCOPES as readonly string[]).includes(w));
    if (words.length === 0 || unknown.length > 0) {
      const reason = `A space-separated list of ${PROFILE_SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`;
      problems.push({ name: 'profile.scope', reason });
    }
  }
  return problems;
}

/** Fields that are each fine but do not go together (FACTS §1.2). `named`: the fields already refused. */
export function createPaymentCrossFieldProblems(fields: Partial<CreatePaymentFields>, named: readonly ErrorDetail[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const fail = (name: string, reason: string) => problems.push({ name, reason });
  const { paymentMethod, userFlow } = fields;
  if (paymentMethod === 'CARD') {
    if (userFlow && userFlow !== 'WEB_REDIRECT') fail('userFlow', 'CARD payments must use WEB_REDIRECT');
    if (fields.receipt) fail('receipt', 'A receipt is only allowed for WALLET payments');
    if (fields.expiresAt) fail('expiresAt', 'Long-living payments are only allowed for WALLET payments');
  }
  if (userFlow === 'WEB_REDIRECT' && fields.returnUrl === undefined) fail('returnUrl', 'Required when userFlow is WEB_REDIRECT');
  // The spec asks PUSH_MESSAGE for a valid phone number: the push goes to the user's phone, which a personal QR does
  // not name. A customerToken does (FACTS §1.2): a QR check-in handed it out for the user who scanned.
  const customerRefused = [...named, ...problems].some((d) => d.name.startsWith('customer'));
  if (userFlow === 'PUSH_MESSAGE' && !fields.customer?.phoneNumber && !fields.customer?.customerToken && !customerRefused)
    fail('customer.phoneNumber', 'Required when userFlow is PUSH_MESSAGE (or a customerToken from a QR check-in)');
  if (fields.qrFormat && userFlow && userFlow !== 'QR') fail('qrFormat', 'Only allowed when userFlow is QR');
  if (fields.expiresAt && userFlow && userFlow !== 'PUSH_MESSAGE' && userFlow !== 'QR')
    fail('expiresAt', 'Only allowed when userFlow is PUSH_MESSAGE or QR');
  problems.push(...shippingProblems(fields.shipping, fields.amount?.currency));
  return problems;
}

/** The command of fields that passed every check: only the known fields, defaults filled, the scope's words once each. */
export function toCreatePaymentCommand(fields: CreatePaymentFields): CreatePaymentCommand {
  const { profileScope, expiresAt, qrFormat } = fields;
  return {
    reference: fields.reference,
    amount: { currency: fields.amount.currency, value: fields.amount.value },
    paymentMethod: fields.paymentMethod,
    userFlow: fields.userFlow,
    customer: namesCustomer(fields.customer) ? oneIdentifier(fields.customer) : undefined,
    customerInteraction: fields.customerInteraction ?? 'CUSTOMER_NOT_PRESENT',
    returnUrl: fields.returnUrl,
    receiptUrl: fields.receiptUrl,
    paymentDescription: fields.paymentDescription,
    receipt: fields.receipt,
    industryData: fields.industryData,
    metadata: fields.metadata,
    ...(duplicateKeysOf(fields.metadata).length > 0 && { metadataDuplicateKeys: duplicateKeysOf(fields.metadata) }),
    profileScope: profileScope === undefined ? undefined : [...new Set(profileScope.split(' ').filter((w) => w !== ''))].join(' '),
    ...(fields.minimumUserAge !== undefined && { minimumUserAge: fields.minimumUserAge }),
    expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt),
    qrFormat: qrFormat && { format: qrFormat.format, size: qrFormat.size },
    shipping: fields.shipping,
  };
}

function oneIdentifier(customer: Customer): Customer {
  if (customer.phoneNumber) return { phoneNumber: customer.phoneNumber };
  if (customer.personalQr) return { personalQr: customer.personalQr };
  return { customerToken: customer.customerToken };
}

export interface CreatePaymentSetting {
  env: PaygraphEnv;
  now: Date;
}

/**
 * The refusals of a well-formed create, with their public titles. The payment service applies them to every create,
 * whoever asks (REST, the graph, a checkout), once every field is well-formed: a body with field errors hears about
 * all of them first, not about one domain rule a malformed field tripped.
 */
export function refuseCreatePayment(command: CreatePaymentCommand, setting: CreatePaymentSetting): void {
  const ahead = command.expiresAt && command.expiresAt.getTime() - setting.now.getTime();
  if (ahead !== undefined && ahead > MAX_LONG_LIVING_MS) {
    throw new AppError('EXPIRATION_TOO_LATE', 'expiresAt must be at most 60 days ahead', [
      { name: 'expiresAt', reason: 'Must be at most 60 days ahead' },
    ]);
  }
  if (command.paymentMethod === 'CARD' && setting.env === 'test') {
    throw new AppError('CARD_NOT_AVAILABLE_IN_TEST', 'CARD is not available in the test environment', [
      { name: 'paymentMethod.type', reason: 'CARD is not available in the test environment' },
    ]);
  }
  if (ahead !== undefined && ahead <= MIN_LONG_LIVING_MS) {
    throw new AppError('EXPIRATION_TOO_SOON', 'expiresAt must be more than 10 minutes in the future', [
      { name: 'expiresAt', reason: 'Must be more than 10 minutes ahead' },
    ]);
  }
  if (command.expiresAt && !command.receipt) {
    throw new AppError('LONG_LIVING_REQUIRES_RECEIPT', 'A payment with expiresAt must have a receipt', [
      { name: 'receipt', reason: 'Required when expiresAt is set' },
    ]);
  }
  const tooSmall = amountTooSmall(command.amount, 'amount.value');
  if (tooSmall) throw new AppError('AMOUNT_TOO_SMALL', 'The smallest NOK payment is 100 minor units (1 NOK)', [tooSmall]);
  if (command.metadata) refuseMetadata(command.metadata, command.metadataDuplicateKeys ?? []);
}

/**
 * ePayment's metadata limits, each refused with its code (FACTS §14.3): a key written twice (4110, which each face
 * detects in what it reads: REST's JSON text, the graph's list of pairs), more than 5 pairs (4100), a key longer than
 * 100 characters (4120), a value longer than 500 (4130).
 */
function refuseMetadata(metadata: Record<string, string>, duplicateKeys: readonly string[]): void {
  const { pairs, keyLength, valueLength } = METADATA_LIMITS;
  if (duplicateKeys.length > 0) {
    throw new AppError(
      'METADATA_DUPLICATE_KEYS',
      `metadata has keys given more than once: ${duplicateKeys.join(', ')}`,
      duplicateKeys.map((key) => ({ name: `metadata.${key}`, reason: 'The key is given more than once' })),
    );
  }
  const keys = Object.keys(metadata);
  if (keys.length > pairs) {
    throw new AppError('METADATA_CAPACITY_EXCEEDED', `metadata has ${keys.length} pairs; at most ${pairs} are allowed`, [
      { name: 'metadata', reason: `At most ${pairs} key-value pairs` },
    ]);
  }
  const longKeys = keys.filter((key) => [...key].length > keyLength);
  if (longKeys.length > 0) {
    throw new AppError('METADATA_KEY_LENGTH_EXCEEDED', `metadata keys must be at most ${keyLength} characters`, [
      { name: 'metadata', reason: `Keys must be at most ${keyLength} characters` },
    ]);
  }
  const longValues = keys.filter((key) => [...metadata[key]!].length > valueLength);
  if (longValues.length > 0) {
    throw new AppError(
      'METADATA_VALUE_LENGTH_EXCEEDED',
      `metadata values must be at most ${valueLength} characters`,
      longValues.map((key) => ({ name: `metadata.${key}`, reason: `Must be at most ${valueLength} characters` })),
    );
  }
}

/**
 * The smallest payable amount ("Amount too small", FACTS §1.2), named as the asking request names its amount: a
 * checkout session refuses an order it could never pay with it.
 */
export function amountTooSmall(amount: Money, field: string): ErrorDetail | undefined {
  if (amount.currency !== 'NOK' || amount.value >= MIN_NOK_AMOUNT) return undefined;
  return { name: field, reason: `Must be at least ${MIN_NOK_AMOUNT} for NOK` };
}
