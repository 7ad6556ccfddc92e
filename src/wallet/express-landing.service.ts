import Type from 'typebox';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { askShippingCallback, mayCallShipping } from '../payments/shipping-callback.js';
import { compileSchema } from '../platform/validation/compiled-schema.js';
import { allowedCountriesOf, defaultOptionOf, groupsProblems, optionOf } from '../payments/express.rules.js';
import { ShippingGroups, type ShippingDetails, type ShippingGroup, type ShippingOption } from '../payments/express-shipping.js';
import type { Payment } from '../payments/payment.entity.js';
import type { Currency } from '../payments/payment.entity.js';
import { normalizePhoneNumber } from '../user-profiles/phone-number.js';
import { profileAddresses, type PaymentAddress } from '../user-profiles/user-details.js';
import { UserProfile } from '../user-profiles/user-profile.entity.js';
import { WalletUser } from './wallet-user.entity.js';

/**
 * The Express part of the landing page (FACTS §14.1): the test user's addresses (or one typed), the shipping the
 * merchant offers there (its fixed groups, or its dynamic callback asked for that address), the option chosen, and
 * the total. Read before the approval's transaction, which holds no outbound call.
 */

/** Which address the person picked: one of the user's (`'0'`, `'1'`, …) or `'other'`, typed. */
export interface AddressChoice {
  pick: string;
  typed: Partial<Record<keyof PaymentAddress, string>>;
}

export interface ExpressOffer {
  /** The test user named by the phone number, with their addresses (the default first). */
  user?: { phoneNumber: string; addresses: PaymentAddress[] };
  /** What the page says when the phone number names no test user. */
  userMessage?: string;
  pick: string;
  typed: AddressChoice['typed'];
  address?: PaymentAddress;
  /** In words: why there is no shipping for the address (a typed address incomplete, a country not shipped to, …). */
  cannotShip?: string;
  groups?: ShippingGroup[];
  chosen?: ShippingOption;
  /** The create's amount, before shipping. */
  base: number;
  /** The create's amount plus the chosen option's. */
  total: number;
}

/** Where a sales unit ships when `allowedCountries` is absent: the unit's country, as its currency tells it. */
const COUNTRY_OF_CURRENCY: Record<Currency, string> = { NOK: 'NO', DKK: 'DK', EUR: 'FI' };

const CANNOT_SHIP = 'The shop cannot ship to this address. Choose another address.';

export async function expressOffer(
  services: Services,
  payment: Payment,
  phoneInput: string | undefined,
  choice: AddressChoice,
  optionId?: string,
): Promise<ExpressOffer> {
  const offer: ExpressOffer = { pick: choice.pick, typed: choice.typed, base: payment.amount, total: payment.amount };
  const phoneNumber = phoneInput ? normalizePhoneNumber(phoneInput) : undefined;
  if (!phoneInput) return offer;
  const em = forkEm(services.orm);
  const user = phoneNumber ? await em.findOne(WalletUser, { phoneNumber }) : null;
  const profile = user ? await em.findOne(UserProfile, { sub: user.sub }) : null;
  if (!user || !profile) return { ...offer, userMessage: 'No test user has that phone number.' };
  const addresses = profileAddresses({
    street_address: profile.streetAddress,
    postal_code: profile.postalCode,
    region: profile.region,
    country: profile.country,
    other_addresses: profile.otherAddresses ?? null,
  });
  offer.user = { phoneNumber: user.phoneNumber, addresses };
  const address = choice.pick === 'other' ? typedAddress(choice.typed) : addresses[Number(choice.pick)];
  if (!address) return { ...offer, cannotShip: 'Fill in street address, postcode, city and country.' };
  offer.address = address;
  const shipping = payment.shipping!;
  if (!allowedCountriesOf(shipping, COUNTRY_OF_CURRENCY[payment.currency]).includes(address.country)) {
    return { ...offer, cannotShip: `The shop does not ship to ${address.country}. Choose another address.` };
  }
  const groups = shipping.fixedOptions ?? (await dynamicGroups(services, payment, address));
  if (typeof groups === 'string') return { ...offer, cannotShip: groups };
  const chosen = (optionId && optionOf(groups, optionId)?.option) || defaultOptionOf(groups);
  return { ...offer, groups, chosen, total: payment.amount + (chosen?.amount.value ?? 0) };
}

/** The approval's shipping: the address and the option the person chose, when the merchant offers that option there. */
export function chosenShipping(offer: ExpressOffer, optionId: string | undefined): ShippingDetails | string {
  if (offer.userMessage) return offer.userMessage;
  if (!offer.address || !offer.groups) return offer.cannotShip ?? 'Choose an address.';
  const found = optionId ? optionOf(offer.groups, optionId) : undefined;
  if (!found) return 'Choose a shipping option.';
  return {
    address: offer.address,
    shippingOptionId: found.option.id,
    shippingOptionName: found.option.name,
    shippingCost: found.option.amount.value,
  };
}

function typedAddress(typed: AddressChoice['typed']): PaymentAddress | undefined {
  const value = (name: keyof PaymentAddress) => typed[name]?.trim() ?? '';
  const country = value('country').toUpperCase();
  if (!value('addressLine1') || !value('city') || !value('postCode') || !/^[A-Z]{2}$/.test(country)) return undefined;
  return {
    addressLine1: value('addressLine1').slice(0, 100),
    addressLine2: value('addressLine2').slice(0, 100) || null,
    city: value('city').slice(0, 100),
    postCode: value('postCode').slice(0, 20),
    country,
  };
}

const callbackAnswer = compileSchema(Type.Object({ groups: Type.Array(ShippingGroups.items, { maxItems: 50 }) }));

/**
 * The merchant's dynamic options for an address (FACTS §14.1): POSTed to `callbackUrl` as given, the camelCase body
 * WooCommerce reads, `Authorization` the merchant's token verbatim. A non-2xx answer, a timeout, a body that is not
 * the groups' shape, or no groups (WooCommerce's `{"groups": []}`) is a shop that cannot ship there.
 */
async function dynamicGroups(services: Services, payment: Payment, address: PaymentAddress): Promise<ShippingGroup[] | string> {
  const dynamic = payment.shipping!.dynamicOptions!;
  if (!mayCallShipping(payment.id)) return 'The shop could not be asked about shipping again. Try again later.';
  const answer = await askShippingCallback(
    dynamic.callbackUrl,
    {
      reference: payment.reference,
      addressLine1: address.addressLine1,
      addressLine2: address.addressLine2,
      city: address.city,
      postCode: address.postCode,
      country: address.country,
    },
    { authorization: dynamic.callbackAuthorizationToken },
    services.config,
  );
  if (!answer.ok) return CANNOT_SHIP;
  const { value, details } = callbackAnswer.check(answer.json);
  if (details.length > 0 || value.groups.length === 0) return CANNOT_SHIP;
  if (groupsProblems(value.groups, payment.currency, 'groups').length > 0) return CANNOT_SHIP;
  return value.groups;
}
