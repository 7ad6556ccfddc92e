import type { Config } from '../config.js';
import { testMerchantClients } from '../merchants/merchants.seed.js';

/** Merchant A's demo credentials, which the tools prefill in the test environment; production prefills nothing. */
export interface PrefilledCredentials {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
  msn: string;
}

export function prefilledCredentials(config: Pick<Config, 'env'>): PrefilledCredentials | null {
  const merchant = testMerchantClients[0];
  if (config.env !== 'test' || !merchant) return null;
  return { clientId: merchant.clientId, clientSecret: merchant.clientSecret, subscriptionKey: merchant.subscriptionKey, msn: merchant.msn };
}
