import { randomUUID } from 'node:crypto';
import { PrincipalClient, type HttpResult } from './principal-client.js';

export const MERCHANT_A = {
  msn: '123456',
  clientId: 'test-client-123456',
  clientSecret: 'test-secret-123456',
  subscriptionKey: 'test-key-123456',
};
export const MERCHANT_B = {
  msn: '654321',
  clientId: 'test-client-654321',
  clientSecret: 'test-secret-654321',
  subscriptionKey: 'test-key-654321',
};
export type TestMerchant = typeof MERCHANT_A;

export type { HttpResult } from './principal-client.js';

/** A merchant's view of the service over real HTTP: REST and the graph, with its own token, for its own sales unit. */
export class MerchantClient extends PrincipalClient {
  constructor(
    baseUrl: string,
    readonly merchant: TestMerchant = MERCHANT_A,
  ) {
    super(baseUrl, merchant);
  }

  protected actingFor(): Record<string, string> {
    return { 'Merchant-Serial-Number': this.merchant.msn };
  }

  createPayment(overrides: Record<string, unknown> = {}, idempotencyKey: string = randomUUID()): Promise<HttpResult> {
    return this.request('POST', '/epayment/v1/payments', paymentBody(overrides), { 'Idempotency-Key': idempotencyKey });
  }

  getPayment(reference: string): Promise<HttpResult> {
    return this.request('GET', `/epayment/v1/payments/${reference}`);
  }

  events(reference: string): Promise<HttpResult> {
    return this.request('GET', `/epayment/v1/payments/${reference}/events`);
  }

  modify(
    reference: string,
    operation: 'capture' | 'refund' | 'cancel',
    value?: number,
    idempotencyKey: string = randomUUID(),
    currency = 'NOK',
  ): Promise<HttpResult> {
    const body = value === undefined ? undefined : { modificationAmount: { currency, value } };
    return this.request('POST', `/epayment/v1/payments/${reference}/${operation}`, body, { 'Idempotency-Key': idempotencyKey });
  }

  forceApprove(reference: string, body: unknown = { customer: { phoneNumber: '4791234567' } }): Promise<HttpResult> {
    return this.request('POST', `/epayment/v1/test/payments/${reference}/approve`, body);
  }

  /** A created and authorized payment, ready for captures. */
  async authorizedPayment(value = 10_000, overrides: Record<string, unknown> = {}): Promise<string> {
    const reference = typeof overrides.reference === 'string' ? overrides.reference : newReference();
    const created = await this.createPayment({ amount: { currency: 'NOK', value }, ...overrides, reference });
    if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
    const approved = await this.forceApprove(reference);
    if (approved.status !== 200) throw new Error(`approve failed: ${approved.text}`);
    return reference;
  }
}

export function newReference(prefix = 'ref'): string {
  return `${prefix}-${randomUUID()}`.slice(0, 50);
}

export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: { currency: 'NOK', value: 10_000 },
    paymentMethod: { type: 'WALLET' },
    reference: newReference(),
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://merchant.example/return',
    paymentDescription: 'Two pairs of socks',
    ...overrides,
  };
}
