import { PrincipalClient, type ClientCredentials } from './principal-client.js';

/** The partner of the test environment (TEST-ENVIRONMENT.md): partner id 100200, Testpartner AS. */
export const TEST_PARTNER = {
  partnerId: '100200',
  clientId: 'test-client-partner',
  clientSecret: 'test-secret-partner',
  subscriptionKey: 'test-key-partner',
} as const;

/**
 * A partner acts for the sales units connected to it, naming the one it acts for on each request
 * (`Merchant-Serial-Number`); `forSalesUnit` gives a client that names another.
 */
export class PartnerClient extends PrincipalClient {
  constructor(
    baseUrl: string,
    readonly msn: string | undefined = undefined,
    credentials: ClientCredentials = TEST_PARTNER,
  ) {
    super(baseUrl, credentials);
  }

  forSalesUnit(msn: string): PartnerClient {
    return new PartnerClient(this.baseUrl, msn, this.credentials);
  }

  protected actingFor(): Record<string, string> {
    return this.msn === undefined ? {} : { 'Merchant-Serial-Number': this.msn };
  }
}
