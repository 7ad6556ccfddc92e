/** Who can call the service (DESIGN "Tenancy and auth"); each kind acts for a different set of sales units. */
export type Principal =
  MerchantPrincipal | PartnerPrincipal | PspPrincipal | CheckoutClientPrincipal | OperatorPrincipal | WalletClientPrincipal;
export type PrincipalKind = Principal['kind'];

interface TokenHolder {
  /** The API client the credentials were issued to. */
  clientId: string;
  /** When the access token that proved this identity expires (seconds since the epoch); absent when issuing one. */
  tokenExpiresAt?: number;
}

/** A merchant's API client: acts for the merchant's own sales units. */
export interface MerchantPrincipal extends TokenHolder {
  kind: 'merchant';
  merchantId: string;
}

/** A partner's API client: acts for the sales units connected to the partner, naming the MSN per request. */
export interface PartnerPrincipal extends TokenHolder {
  kind: 'partner';
  partnerId: string;
}

/** A PSP's API client (`Psp-Id`): acts for the merchants the PSP signed up. */
export interface PspPrincipal extends TokenHolder {
  kind: 'psp';
  pspId: string;
}

/**
 * A merchant's API client presenting `client_id`/`client_secret` on every request instead of a token (the
 * checkout interface): acts for the merchant's own sales units.
 */
export interface CheckoutClientPrincipal {
  kind: 'checkoutClient';
  clientId: string;
  merchantId: string;
  tokenExpiresAt?: undefined;
}

/**
 * The platform operator's API client (tools driving the back office through the graph): covers no sales unit, so
 * it is refused on every merchant, partner and PSP interface and may use only the operator's graph fields.
 */
export interface OperatorPrincipal extends TokenHolder {
  kind: 'operator';
}

/**
 * A wallet app's API client, onboarded by the operator: it authenticates its own users and acts for them, naming
 * the user by phone number (their pending payments, an approval with consent, a rejection). It covers no sales unit,
 * so it is refused on every merchant, partner and PSP interface and may use only the wallet's graph fields.
 */
export interface WalletClientPrincipal extends TokenHolder {
  kind: 'wallet';
}
