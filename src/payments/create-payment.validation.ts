import type { PaygraphEnv } from '../config.js';
import { AppError } from '../platform/errors/app-error.js';
import { checkReceipt } from '../orders/receipt.validation.js';
import { Checker, isHttpsOrAppUrl, isObject, type Json } from '../platform/validation/checker.js';
import type { Currency, CustomerInteraction, PaymentMethodType, QrImageFormat, UserFlow } from './payment.entity.js';

export const CURRENCIES: readonly Currency[] = ['NOK', 'DKK', 'EUR'];
export const USER_FLOWS: readonly UserFlow[] = ['PUSH_MESSAGE', 'NATIVE_REDIRECT', 'WEB_REDIRECT', 'QR'];
const PAYMENT_METHODS: readonly PaymentMethodType[] = ['WALLET', 'CARD'];
const INTERACTIONS: readonly CustomerInteraction[] = ['CUSTOMER_PRESENT', 'CUSTOMER_NOT_PRESENT'];
const QR_FORMATS: readonly QrImageFormat[] = ['TEXT/TARGETURL', 'IMAGE/SVG+XML', 'IMAGE/PNG'];
export const PROFILE_SCOPES = ['name', 'address', 'email', 'phoneNumber', 'birthDate', 'nin'] as const;
export const REFERENCE_PATTERN = /^[a-zA-Z0-9-]{8,50}$/;
export const PHONE_NUMBER_PATTERN = /^\d{10,15}$/;
/** Largest payment amount in minor units (FACTS §1.2). */
export const MAX_AMOUNT = 65_000_000;
/** Smallest payable NOK amount ("Amount too small", FACTS §1.2). */
const MIN_NOK_AMOUNT = 100;
const MINUTE = 60_000;

export interface Customer {
  phoneNumber?: string;
  personalQr?: string;
  customerToken?: string;
}

export interface CreatePaymentCommand {
  reference: string;
  amount: { currency: Currency; value: number };
  paymentMethod: PaymentMethodType;
  userFlow: UserFlow;
  customer?: Customer;
  customerInteraction: CustomerInteraction;
  returnUrl?: string;
  receiptUrl?: string;
  paymentDescription?: string;
  receipt?: Json;
  industryData?: Json;
  metadata?: Record<string, string>;
  profileScope?: string;
  /** Explicit expiry of a long-living payment. */
  expiresAt?: Date;
  qrFormat?: { format: QrImageFormat; size?: number };
}

export interface CreatePaymentRules {
  env: PaygraphEnv;
  now: Date;
}

/** Every body rule of create payment (FACTS §1.2), each failure naming its field. */
export function parseCreatePayment(body: unknown, rules: CreatePaymentRules): CreatePaymentCommand {
  const check = new Checker();
  if (!isObject(body)) {
    throw AppError.validation([{ name: 'body', reason: 'A JSON object is required' }]);
  }
  const reference = check.string(body, 'reference', 'reference', {
    required: true,
    pattern: REFERENCE_PATTERN,
    patternText: '8 to 50 letters, digits or "-"',
  });
  const amount = checkAmount(check, body, 'amount');
  const paymentMethodBody = check.object(body, 'paymentMethod', 'paymentMethod', true);
  const paymentMethod = paymentMethodBody && check.enumeration(paymentMethodBody, 'type', 'paymentMethod.type', PAYMENT_METHODS, true);
  const userFlow = check.enumeration(body, 'userFlow', 'userFlow', USER_FLOWS, true);
  const customer = checkCustomer(check, body.customer, 'customer');
  const customerInteraction =
    check.enumeration(body, 'customerInteraction', 'customerInteraction', INTERACTIONS, false) ?? 'CUSTOMER_NOT_PRESENT';
  const returnUrl = check.string(body, 'returnUrl', 'returnUrl', { max: 2048 });
  if (returnUrl !== undefined && !isHttpsOrAppUrl(returnUrl)) check.fail('returnUrl', 'Must be an https:// URL or a custom app URL scheme');
  const receiptUrl = check.string(body, 'receiptUrl', 'receiptUrl', { max: 2048 });
  if (receiptUrl !== undefined && !isHttpsOrAppUrl(receiptUrl))
    check.fail('receiptUrl', 'Must be an https:// URL or a custom app URL scheme');
  const paymentDescription = check.string(body, 'paymentDescription', 'paymentDescription', { min: 3, max: 100 });
  const receipt = check.object(body, 'receipt', 'receipt', false);
  if (receipt) checkReceipt(check, receipt, 'receipt');
  const industryData = checkIndustryData(check, body);
  const metadata = checkMetadata(check, body.metadata);
  const profileScope = checkProfile(check, body);
  const qrFormat = checkQrFormat(check, body);
  const expiresAt = checkExpiresAt(check, body, rules.now);

  if (paymentMethod === 'CARD') {
    if (userFlow && userFlow !== 'WEB_REDIRECT') check.fail('userFlow', 'CARD payments must use WEB_REDIRECT');
    if (receipt) check.fail('receipt', 'A receipt is only allowed for WALLET payments');
    if (expiresAt) check.fail('expiresAt', 'Long-living payments are only allowed for WALLET payments');
  }
  if (userFlow === 'WEB_REDIRECT' && returnUrl === undefined) check.fail('returnUrl', 'Required when userFlow is WEB_REDIRECT');
  // The spec asks PUSH_MESSAGE for a valid phone number: the push goes to the user's phone, which a QR or token does not name.
  if (userFlow === 'PUSH_MESSAGE' && !customer?.phoneNumber && !check.details.some((d) => d.name.startsWith('customer')))
    check.fail('customer.phoneNumber', 'Required when userFlow is PUSH_MESSAGE');
  if (qrFormat && userFlow && userFlow !== 'QR') check.fail('qrFormat', 'Only allowed when userFlow is QR');
  if (expiresAt && userFlow && userFlow !== 'PUSH_MESSAGE' && userFlow !== 'QR')
    check.fail('expiresAt', 'Only allowed when userFlow is PUSH_MESSAGE or QR');
  check.throwIfFailed();

  // Domain refusals, with their public titles, only once every field is well-formed: a body with field errors
  // hears about all of them first, not about one domain rule that a malformed field happened to trip.
  if (paymentMethod === 'CARD' && rules.env === 'test') {
    throw new AppError('CARD_NOT_AVAILABLE_IN_TEST', 'CARD is not available in the test environment', [
      { name: 'paymentMethod.type', reason: 'CARD is not available in the test environment' },
    ]);
  }
  if (expiresAt && expiresAt.getTime() - rules.now.getTime() <= 10 * MINUTE) {
    throw new AppError('EXPIRATION_TOO_SOON', 'expiresAt must be more than 10 minutes in the future', [
      { name: 'expiresAt', reason: 'Must be more than 10 minutes ahead' },
    ]);
  }
  if (expiresAt && !receipt) {
    throw new AppError('LONG_LIVING_REQUIRES_RECEIPT', 'A payment with expiresAt must have a receipt', [
      { name: 'receipt', reason: 'Required when expiresAt is set' },
    ]);
  }
  if (amount!.currency === 'NOK' && amount!.value < MIN_NOK_AMOUNT) {
    throw new AppError('AMOUNT_TOO_SMALL', 'The smallest NOK payment is 100 minor units (1 NOK)', [
      { name: 'amount.value', reason: 'Must be at least 100 for NOK' },
    ]);
  }
  return {
    reference: reference!,
    amount: amount!,
    paymentMethod: paymentMethod!,
    userFlow: userFlow!,
    customer,
    customerInteraction,
    returnUrl,
    receiptUrl,
    paymentDescription,
    receipt,
    industryData,
    metadata,
    profileScope,
    expiresAt,
    qrFormat,
  };
}

export function checkAmount(check: Checker, parent: Json, path: string): { currency: Currency; value: number } | undefined {
  const amount = check.object(parent, path.split('.').pop()!, path, true);
  if (!amount) return undefined;
  const currency = check.enumeration(amount, 'currency', `${path}.currency`, CURRENCIES, true);
  // The schema allows 0, but a payment or modification of nothing can never move money: 1 minor unit at least.
  const value = check.integer(amount, 'value', `${path}.value`, { required: true, min: 1, max: MAX_AMOUNT });
  return currency && value !== undefined ? { currency, value } : undefined;
}

/** Exactly one of `phoneNumber`, `personalQr`, `customerToken` (FACTS §1.2). */
export function checkCustomer(check: Checker, value: unknown, path: string): Customer | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    check.fail(path, 'Must be an object');
    return undefined;
  }
  const given = ['phoneNumber', 'personalQr', 'customerToken'].filter((k) => value[k] !== undefined && value[k] !== null);
  if (given.length !== 1) {
    check.fail(path, given.length === 0 ? 'Give one of phoneNumber, personalQr or customerToken' : `Give only one of ${given.join(', ')}`);
    return undefined;
  }
  const phoneNumber = check.string(value, 'phoneNumber', `${path}.phoneNumber`, {
    pattern: PHONE_NUMBER_PATTERN,
    patternText: '10 to 15 digits including the country code, no plus sign',
  });
  const personalQr = check.string(value, 'personalQr', `${path}.personalQr`, { min: 5, max: 255 });
  const customerToken = check.string(value, 'customerToken', `${path}.customerToken`, { min: 1, max: 255 });
  if (phoneNumber) return { phoneNumber };
  if (personalQr) return { personalQr };
  if (customerToken) return { customerToken };
  return undefined;
}

function checkIndustryData(check: Checker, body: Json): Json | undefined {
  const industryData = check.object(body, 'industryData', 'industryData', false);
  if (!industryData) return undefined;
  const airline = check.object(industryData, 'airlineData', 'industryData.airlineData', false);
  if (airline) {
    const at = 'industryData.airlineData';
    check.string(airline, 'agencyInvoiceNumber', `${at}.agencyInvoiceNumber`, { required: true, min: 1, max: 6 });
    check.string(airline, 'airlineCode', `${at}.airlineCode`, {
      required: true,
      pattern: /^[0-9]{3}$/,
      patternText: 'exactly 3 digits (IATA numeric code)',
    });
    check.string(airline, 'airlineDesignatorCode', `${at}.airlineDesignatorCode`, {
      required: true,
      pattern: /^[A-Za-z0-9]{2}$/,
      patternText: 'exactly 2 characters (IATA designator)',
    });
    check.string(airline, 'passengerName', `${at}.passengerName`, { required: true, min: 1, max: 49 });
    check.string(airline, 'ticketNumber', `${at}.ticketNumber`, { min: 1, max: 150 });
  }
  return industryData;
}

function checkMetadata(check: Checker, value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    check.fail('metadata', 'Must be an object of string values');
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length > 5) check.fail('metadata', 'At most 5 key-value pairs');
  for (const [key, v] of entries) {
    if (key.length > 100) check.fail(`metadata.${key.slice(0, 20)}`, 'Keys must be at most 100 characters');
    if (typeof v !== 'string') check.fail(`metadata.${key}`, 'Must be a string');
    else if (v.length > 500) check.fail(`metadata.${key}`, 'Must be at most 500 characters');
  }
  return value as Record<string, string>;
}

function checkProfile(check: Checker, body: Json): string | undefined {
  const profile = check.object(body, 'profile', 'profile', false);
  if (!profile) return undefined;
  const scope = check.string(profile, 'scope', 'profile.scope', { min: 1, max: 200 });
  if (scope === undefined) return undefined;
  const words = scope.split(' ').filter((w) => w !== '');
  const unknown = words.filter((w) => !(PROFILE_SCOPES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0) {
    check.fail(
      'profile.scope',
      `A space-separated list of ${PROFILE_SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
    return undefined;
  }
  return [...new Set(words)].join(' ');
}

function checkQrFormat(check: Checker, body: Json): CreatePaymentCommand['qrFormat'] {
  const qr = check.object(body, 'qrFormat', 'qrFormat', false);
  if (!qr) return undefined;
  const format = check.enumeration(qr, 'format', 'qrFormat.format', QR_FORMATS, true);
  const size = check.integer(qr, 'size', 'qrFormat.size', { min: 100, max: 2000 });
  if (size !== undefined && format !== undefined && format !== 'IMAGE/PNG')
    check.fail('qrFormat.size', 'Only allowed when format is IMAGE/PNG');
  return format ? { format, size } : undefined;
}

function checkExpiresAt(check: Checker, body: Json, now: Date): Date | undefined {
  const text = check.string(body, 'expiresAt', 'expiresAt');
  if (text === undefined) return undefined;
  const at = parseRfc3339(text);
  if (!at) {
    check.fail('expiresAt', 'Must be an RFC 3339 date-time such as 2026-12-01T12:00:00Z');
    return undefined;
  }
  // Too soon is a domain refusal with its own title, raised by the caller after every field is checked.
  if (at.getTime() - now.getTime() >= 28 * 24 * 60 * MINUTE) check.fail('expiresAt', 'Must be less than 28 days ahead');
  return at;
}

/** An RFC 3339 date-time, or undefined. `Date` alone would roll 30 February over to March and 24:00 to the next day. */
function parseRfc3339(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i.exec(text);
  if (!match) return undefined;
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
