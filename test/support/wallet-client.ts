import { testWalletClient } from '../../src/wallet/wallet-client.seed.js';
import { PrincipalClient, type ClientCredentials, type HttpResult } from './principal-client.js';

/** What the wallet's graph shows of a payment (schema/wallet.graphql). */
export const WALLET_PAYMENT_FIELDS =
  'token shopName amount { value currency } description state awaitsUser expiresAt requestedScopes customerPhoneNumber';

/** The payments of a `pending` answer's page. */
export function pendingNodes(res: HttpResult): Record<string, unknown>[] {
  return (res.body.data.walletPendingPayments.edges as { node: Record<string, unknown> }[]).map((edge) => edge.node);
}

/** A wallet app's API client (the test environment's by default): acts for its users, names no sales unit. */
export class WalletClient extends PrincipalClient {
  constructor(baseUrl: string, credentials: ClientCredentials = testWalletClient) {
    super(baseUrl, credentials);
  }

  protected actingFor(): Record<string, string> {
    return {};
  }

  /** A page of the user's pending payments (a connection: `edges`, `pageInfo`); `pendingNodes` reads its payments. */
  pending(phoneNumber: string, page: { first?: number; after?: string } = {}): Promise<HttpResult> {
    return this.graphql(
      `query($p: String!, $first: Int, $after: String) { walletPendingPayments(phoneNumber: $p, first: $first, after: $after) {
        edges { cursor node { ${WALLET_PAYMENT_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
      { p: phoneNumber, first: page.first ?? 20, after: page.after ?? null },
    );
  }

  approve(input: { phoneNumber: string; token: string; consentedScopes?: string[] }): Promise<HttpResult> {
    return this.graphql(
      `mutation($i: WalletApprovePaymentInput!) { walletApprovePayment(input: $i) { payment { ${WALLET_PAYMENT_FIELDS} } userErrors { code field message } } }`,
      { i: input },
    );
  }

  reject(input: { phoneNumber: string; token: string }): Promise<HttpResult> {
    return this.graphql(
      `mutation($i: WalletRejectPaymentInput!) { walletRejectPayment(input: $i) { payment { ${WALLET_PAYMENT_FIELDS} } userErrors { code field message } } }`,
      { i: input },
    );
  }
}

/** The landing token a payment's `redirectUrl` carries (what its QR code encodes too). */
export function tokenOf(redirectUrl: string): string {
  return new URL(redirectUrl).searchParams.get('token')!;
}
