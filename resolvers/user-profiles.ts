import type { Resolvers } from '../src/generated/graphql.js';
import type { UserInfoAddress } from '../src/user-profiles/user-info.claims.js';
import { paymentUserInfo } from '../src/user-profiles/user-info.graph.js';

/** A payment's consented profile, with the claims in the graph's camelCase. */
export const userProfileResolvers: Resolvers = {
  PaymentProfile: {
    userInfo: (profile, _, { request }) => paymentUserInfo(request, profile.paymentId),
  },
  UserInfo: {
    givenName: (u) => u.given_name ?? null,
    familyName: (u) => u.family_name ?? null,
    emailVerified: (u) => u.email_verified ?? null,
    phoneNumber: (u) => u.phone_number ?? null,
    otherAddresses: (u) => u.other_addresses?.map(address) ?? null,
    address: (u) => (u.address ? address(u.address) : null),
    accounts: (u) =>
      u.accounts?.map((a) => ({ accountName: a.account_name, accountNumber: a.account_number, bankName: a.bank_name })) ?? null,
  },
};

function address(a: UserInfoAddress) {
  return {
    addressType: a.address_type,
    country: a.country,
    default: a.default,
    formatted: a.formatted,
    postalCode: a.postal_code,
    region: a.region,
    streetAddress: a.street_address,
  };
}
