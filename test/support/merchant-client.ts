import { randomUUID } from 'node:crypto';

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

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A merchant's view of the service over real HTTP: REST and the graph, with its own token. */
export class MerchantClient {
  private token: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly merchant: TestMerchant = MERCHANT_A,
  ) {}

  async accessToken(): Promise<string> {
    if (!this.token) {
      const res = await this.raw('POST', '/accesstoken/get', undefined, {
        client_id: this.merchant.clientId,
        client_secret: this.merchant.clientSecret,
        'Ocp-Apim-Subscription-Key': this.merchant.subscriptionKey,
      });
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      this.token = res.body.access_token as string;
    }
    return this.token;
  }

  async headers(extra: Record<string, string> = {}): Promise<Record<string, string>> {
    return {
      Authorization: `Bearer ${await this.accessToken()}`,
      'Ocp-Apim-Subscription-Key': this.merchant.subscriptionKey,
      'Merchant-Serial-Number': this.merchant.msn,
      'Content-Type': 'application/json',
      ...extra,
    };
  }

  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<HttpResult> {
    return this.raw(method, path, body, await this.headers(extraHeaders));
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

  async graphql(query: string, variables: Record<string, unknown> = {}): Promise<HttpResult> {
    return this.request('POST', '/graphql', { query, variables });
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
