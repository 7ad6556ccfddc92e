import type { OtherAddress } from './user-profile.entity.js';

/**
 * `userDetails` on a payment (FACTS §14.2, ePayment 1.8.1): the profile the user consented to share when approving,
 * exactly the consented scopes: `name` gives `firstName` and `lastName`, `email` gives `email`, `phoneNumber` gives
 * `mobileNumber`, `address` gives `addresses` (the default address first). birthDate, nin and accountNumbers have no
 * field there and stay on userinfo. Personal data is read from the profile when the payment is shown or its webhook
 * delivered, never copied into the payment or the outbox.
 */
export interface UserDetails {
  firstName?: string;
  lastName?: string;
  email?: string;
  mobileNumber?: string;
  addresses?: PaymentAddress[];
}

/** An address as ePayment shows it (`userDetails.addresses[]`, `shippingDetails.address`). */
export interface PaymentAddress {
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  postCode: string;
  country: string;
}

/** The profile's columns `userDetails` is made of, as `userDetailsProfileSql` reads them (one jsonb value). */
export interface UserDetailsProfile {
  given_name: string;
  family_name: string;
  email: string;
  phone_number: string;
  street_address: string;
  postal_code: string;
  region: string;
  country: string;
  other_addresses: OtherAddress[] | null;
}

/** A jsonb subquery of the profile whose `sub` is `subExpression` (a column of the caller's row), for one statement. */
export function userDetailsProfileSql(subExpression: string): string {
  return `(select jsonb_build_object('given_name', given_name, 'family_name', family_name, 'email', email, 'phone_number', phone_number,
    'street_address', street_address, 'postal_code', postal_code, 'region', region, 'country', country, 'other_addresses', other_addresses)
    from user_profile where sub = ${subExpression})`;
}

/** The user's addresses, the default one first, as ePayment shows them. */
export function profileAddresses(
  profile: Pick<UserDetailsProfile, 'street_address' | 'postal_code' | 'region' | 'country' | 'other_addresses'>,
): PaymentAddress[] {
  const first = {
    addressLine1: profile.street_address,
    addressLine2: null,
    city: profile.region,
    postCode: profile.postal_code,
    country: profile.country,
  };
  const others = (profile.other_addresses ?? []).map((a) => ({
    addressLine1: a.streetAddress,
    addressLine2: null,
    city: a.region,
    postCode: a.postalCode,
    country: a.country,
  }));
  return [first, ...others];
}

/** The consented scopes' part of the profile; null when nothing was shared (no scope, not approved, no profile). */
export function userDetailsOf(scope: string | null, profile: UserDetailsProfile | null): UserDetails | null {
  if (!scope || !profile) return null;
  const words = new Set(scope.split(' '));
  const details: UserDetails = {};
  if (words.has('name')) {
    details.firstName = profile.given_name;
    details.lastName = profile.family_name;
  }
  if (words.has('email')) details.email = profile.email;
  if (words.has('phoneNumber')) details.mobileNumber = profile.phone_number;
  if (words.has('address')) details.addresses = profileAddresses(profile);
  return Object.keys(details).length > 0 ? details : null;
}
