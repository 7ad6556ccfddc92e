import { createHash } from 'node:crypto';
import type { CheckoutSession } from './checkout-session.entity.js';
import type { CheckoutSessionRequest, ContactDetails, SessionAddress } from './checkout-session.types.js';

/** What the checkout page's form posts (every value as typed). */
export interface BuyerForm {
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  streetAddress?: string;
  postalCode?: string;
  city?: string;
  region?: string;
  country?: string;
  shippingOptionId?: string;
  customConsent?: string;
  walletPhone?: string;
  /** The price version of the session the page showed (`priceVersion`): its Pay form carries it. */
  priceVersion?: string;
}

export const BUYER_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'phoneNumber',
  'streetAddress',
  'postalCode',
  'city',
  'region',
  'country',
  'shippingOptionId',
  'customConsent',
  'walletPhone',
  'priceVersion',
] as const satisfies readonly (keyof BuyerForm)[];

export type FieldErrors = Partial<Record<keyof BuyerForm, string[]>>;

export interface CheckedBuyer {
  ok: boolean;
  fieldErrors: FieldErrors;
  contact?: ContactDetails;
  address?: SessionAddress;
  consent: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9]{8,15}$/;

/**
 * The buyer's input, checked per field so the page shows each problem next to its field: contact (unless
 * `PaymentOnly`), address (`Full` only; a supported country), and a required custom consent.
 */
export function checkBuyerForm(
  request: CheckoutSessionRequest,
  form: BuyerForm,
  parts: { contact: boolean; address: boolean; shipping: boolean; consent: boolean },
): CheckedBuyer {
  const errors: FieldErrors = {};
  const text = (name: keyof BuyerForm, max = 200): string => {
    const value = (form[name] ?? '').trim();
    if (!value) errors[name] = ['Required'];
    else if (value.length > max) errors[name] = [`At most ${max} characters`];
    return value;
  };
  let contact: ContactDetails | undefined;
  if (parts.contact) {
    const firstName = text('firstName');
    const lastName = text('lastName');
    const email = text('email', 255);
    if (email && !EMAIL.test(email)) errors.email = ['Enter an email address such as name@example.com'];
    const phone = text('phoneNumber', 20).replace(/\s/g, '');
    if (phone && !PHONE.test(phone)) errors.phoneNumber = ['Enter a phone number with country code, such as +4791234567'];
    contact = { firstName, lastName, email, phoneNumber: phone.replace(/^\+/, '') };
  }
  let address: SessionAddress | undefined;
  if (parts.address) {
    const streetAddress = text('streetAddress');
    const postalCode = text('postalCode', 20);
    const city = text('city');
    const country = text('country', 2).toUpperCase();
    const supported = request.configuration?.countries?.supported;
    if (country && !/^[A-Z]{2}$/.test(country)) errors.country = ['Enter a two-letter country code, such as NO'];
    else if (country && supported && !supported.includes(country)) errors.country = [`Choose one of ${supported.join(', ')}`];
    address = { streetAddress, postalCode, city, region: (form.region ?? '').trim() || city, country };
  }
  const consent = form.customConsent === 'yes';
  if (parts.consent && request.configuration?.customConsent?.required && !consent) {
    errors.customConsent = ['Required to complete the purchase'];
  }
  const ok = Object.keys(errors).length === 0;
  return { ok, fieldErrors: errors, ...(ok ? { contact, address } : {}), consent };
}

export function formFromBody(body: URLSearchParams): BuyerForm {
  const form: BuyerForm = {};
  for (const name of BUYER_FIELDS) {
    const value = body.get(name);
    if (value !== null) form[name] = value;
  }
  return form;
}

/**
 * The version of what the buyer is asked to pay: the order's amount and the merchant's shipping prices, the two
 * things the merchant may change (`PATCH`) while the buyer has the page open. The page's Pay form carries the
 * version it was rendered with; the buyer's own steps (an address, a chosen option) leave it as it was.
 */
export function priceVersion(session: Pick<CheckoutSession, 'amount' | 'currency' | 'request'>): string {
  const options = (session.request.logistics?.fixedOptions ?? []).map((o) => [o.id, o.amount?.value ?? 0]);
  return createHash('sha256')
    .update(JSON.stringify([session.currency, session.amount, options]))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The page the buyer pays from showed other prices than the session has now (the merchant changed them meanwhile):
 * the buyer never saw what Pay would approve. A Pay without a version (not sent from the page) is not checked.
 */
export function pricesChangedSinceShown(session: Pick<CheckoutSession, 'amount' | 'currency' | 'request'>, form: BuyerForm): boolean {
  return form.priceVersion !== undefined && form.priceVersion !== priceVersion(session);
}
