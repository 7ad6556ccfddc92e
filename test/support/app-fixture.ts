import type { Config } from '../../src/config.js';
import { MERCHANT_A, MERCHANT_B, MerchantClient } from './merchant-client.js';
import { PartnerClient } from './partner-client.js';
import { PspClient } from './psp-client.js';
import { startTestApp, type TestApp } from './test-app.js';

/** A started test app and a client for each principal of the test environment, for one test file. */
export interface AppFixture {
  readonly app: TestApp;
  readonly baseUrl: string;
  /** Merchant A (sales unit 123456) and merchant B (654321). */
  readonly merchant: MerchantClient;
  readonly otherMerchant: MerchantClient;
  /** The partner, acting for no sales unit until `forSalesUnit`. */
  readonly partner: PartnerClient;
  readonly psp: PspClient;
}

/**
 * Starts the app before the file's tests and stops it after them. The fixture's fields are ready inside tests and
 * hooks declared after this call; clients get their tokens on first use.
 */
export function useTestApp(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): AppFixture {
  let started: (Omit<AppFixture, 'baseUrl'> & { baseUrl: string }) | undefined;
  const current = () => {
    if (!started) throw new Error('the test app is used before beforeAll started it');
    return started;
  };
  beforeAll(async () => {
    const app = await startTestApp(overrides, env);
    started = {
      app,
      baseUrl: app.baseUrl,
      merchant: new MerchantClient(app.baseUrl, MERCHANT_A),
      otherMerchant: new MerchantClient(app.baseUrl, MERCHANT_B),
      partner: new PartnerClient(app.baseUrl),
      psp: new PspClient(app.baseUrl),
    };
  });
  afterAll(async () => {
    await started?.app.close();
    started = undefined;
  });
  return {
    get app() {
      return current().app;
    },
    get baseUrl() {
      return current().baseUrl;
    },
    get merchant() {
      return current().merchant;
    },
    get otherMerchant() {
      return current().otherMerchant;
    },
    get partner() {
      return current().partner;
    },
    get psp() {
      return current().psp;
    },
  };
}
