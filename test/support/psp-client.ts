import { PrincipalClient, type ClientCredentials } from './principal-client.js';

/** The PSP of the test environment (TEST-ENVIRONMENT.md) and the merchant it has signed up. */
export const TEST_PSP = {
  pspId: '6c3f0a2e-5b7d-4e8a-9c1f-2d4b6a8e0c13',
  merchantMsn: '112233',
  clientId: 'test-client-psp',
  clientSecret: 'test-secret-psp',
  subscriptionKey: 'test-key-psp',
} as const;

/** A PSP acts for its signed-up merchants and names itself on every request with `Psp-Id`. */
export class PspClient extends PrincipalClient {
  constructor(
    baseUrl: string,
    readonly pspId: string = TEST_PSP.pspId,
    credentials: ClientCredentials = TEST_PSP,
  ) {
    super(baseUrl, credentials);
  }

  protected actingFor(): Record<string, string> {
    return { 'Psp-Id': this.pspId };
  }
}
