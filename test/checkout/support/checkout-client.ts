import { randomUUID } from 'node:crypto';
import { MERCHANT_A, type TestMerchant } from '../../support/merchant-client.js';
import type { HttpResult } from '../../support/principal-client.js';

/** A merchant's checkout integration over real HTTP: `client_id`/`client_secret` headers, no token (FACTS §8). */
export class CheckoutClient {
  constructor(
    readonly baseUrl: string,
    readonly merchant: TestMerchant = MERCHANT_A,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      client_id: this.merchant.clientId,
      client_secret: this.merchant.clientSecret,
      'Ocp-Apim-Subscription-Key': this.merchant.subscriptionKey,
      'Merchant-Serial-Number': this.merchant.msn,
      'Content-Type': 'application/json',
      ...extra,
    };
  }

  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = this.headers()): Promise<HttpResult> {
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
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  createSession(overrides: Record<string, unknown> = {}): Promise<HttpResult> {
    return this.raw('POST', '/checkout/v3/session', sessionBody(overrides));
  }

  getSession(reference: string): Promise<HttpResult> {
    return this.raw('GET', `/checkout/v3/session/${encodeURIComponent(reference)}`);
  }
}

export function newSessionReference(): string {
  return `co-${randomUUID()}`.slice(0, 50);
}

/** A session request as the public examples send it, with loopback URLs of the test environment. */
export function sessionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { transaction, merchantInfo, ...rest } = overrides as {
    transaction?: Record<string, unknown>;
    merchantInfo?: Record<string, unknown>;
  };
  return {
    merchantInfo: {
      callbackUrl: 'http://127.0.0.1:9/checkout-callback',
      returnUrl: 'https://merchant.example/return',
      callbackAuthorizationToken: 'cb-token-123',
      termsAndConditionsUrl: 'https://merchant.example/terms',
      ...merchantInfo,
    },
    transaction: {
      amount: { value: 2000, currency: 'NOK' },
      reference: newSessionReference(),
      paymentDescription: 'One pair of socks',
      ...transaction,
    },
    logistics: {
      fixedOptions: [
        { brand: 'POSTEN', amount: { value: 5000, currency: 'NOK' }, id: 'posten-home', priority: 1, isDefault: true, description: 'Home' },
        {
          brand: 'POSTEN',
          type: 'PICKUP_POINT',
          amount: { value: 300, currency: 'NOK' },
          id: 'posten-pickup',
          priority: 2,
          isDefault: false,
        },
      ],
    },
    prefillCustomer: {
      firstName: 'Ola',
      lastName: 'Nordmann',
      email: 'ola.nordmann@example.com',
      phoneNumber: '+4791234567',
      streetAddress: 'Robert Levins gate 5',
      city: 'Oslo',
      postalCode: '0150',
      country: 'NO',
    },
    configuration: { customerInteraction: 'CUSTOMER_NOT_PRESENT', elements: 'Full', countries: { supported: ['NO', 'SE', 'DK'] } },
    ...rest,
  };
}

/** The buyer's browser posting a checkout page form (`/checkout/page/pay`, ...) as a browser posts it. */
export async function submitCheckoutPage(
  baseUrl: string,
  path: string,
  token: string,
  fields: Record<string, string>,
): Promise<{ status: number; html: string }> {
  const res = await fetch(`${baseUrl}${path}?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text() };
}
