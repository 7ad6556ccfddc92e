import type { UserBankAccount, UserProfile } from './user-profile.entity.js';

/** The OpenID Connect UserInfo body of the userinfo API (FACTS §10, `Userinfo`). */
export interface UserInfo {
  sub: string;
  sid?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  birthdate?: string;
  nin?: string;
  address?: UserInfoAddress;
  other_addresses?: UserInfoAddress[];
  accounts?: { account_name: string; account_number: string; bank_name: string }[];
}

export interface UserInfoAddress {
  address_type: 'home' | 'work' | 'other';
  country: string;
  default: boolean;
  formatted: string;
  postal_code: string;
  region: string;
  street_address: string;
}

/**
 * The claims of a profile that a consented scope shares, and nothing else: each scope word opens its own claims
 * (`name` the three names, `email` the address and whether it is verified, `address` the default address and the
 * others). `sub` is always there; `sid` names the consent the answer rests on.
 */
export function userInfoClaims(profile: UserProfile, accounts: readonly UserBankAccount[], scope: string, consentId: string): UserInfo {
  const words = new Set(scope.split(' ').filter((w) => w !== ''));
  const info: UserInfo = { sub: profile.sub, sid: consentId };
  if (words.has('name')) {
    info.name = `${profile.givenName} ${profile.familyName}`;
    info.given_name = profile.givenName;
    info.family_name = profile.familyName;
  }
  if (words.has('email')) {
    info.email = profile.email;
    info.email_verified = profile.emailVerified;
  }
  if (words.has('phoneNumber')) info.phone_number = profile.phoneNumber;
  if (words.has('birthDate')) info.birthdate = profile.birthdate;
  if (words.has('nin')) info.nin = profile.nin;
  if (words.has('address')) {
    info.address = {
      address_type: 'home',
      country: profile.country,
      default: true,
      formatted: `${profile.streetAddress}\n${profile.postalCode} ${profile.region}`,
      postal_code: profile.postalCode,
      region: profile.region,
      street_address: profile.streetAddress,
    };
    info.other_addresses = (profile.otherAddresses ?? []).map((a) => ({
      address_type: a.addressType,
      country: a.country,
      default: false,
      formatted: `${a.streetAddress}\n${a.postalCode} ${a.region}`,
      postal_code: a.postalCode,
      region: a.region,
      street_address: a.streetAddress,
    }));
  }
  if (words.has('accountNumbers')) {
    info.accounts = accounts.map((a) => ({ account_name: a.accountName, account_number: a.accountNumber, bank_name: a.bankName }));
  }
  return info;
}
