export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A registered API client of the test environment (TEST-ENVIRONMENT.md): what `POST /accesstoken/get` needs. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
}

/**
 * What every principal's client shares: it gets its access token once, with its own credentials, and sends it with
 * its subscription key. Each principal adds the headers that say whom it acts for.
 */
export abstract class PrincipalClient {
  private token: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly credentials: ClientCredentials,
  ) {}

  /** The headers that name whom a request acts for (a sales unit, a PSP). */
  protected abstract actingFor(): Record<string, string>;

  async accessToken(): Promise<string> {
    if (!this.token) {
      const res = await this.raw('POST', '/accesstoken/get', undefined, {
        client_id: this.credentials.clientId,
        client_secret: this.credentials.clientSecret,
        'Ocp-Apim-Subscription-Key': this.credentials.subscriptionKey,
      });
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      this.token = res.body.access_token as string;
    }
    return this.token;
  }

  async headers(extra: Record<string, string> = {}): Promise<Record<string, string>> {
    return {
      Authorization: `Bearer ${await this.accessToken()}`,
      'Ocp-Apim-Subscription-Key': this.credentials.subscriptionKey,
      'Content-Type': 'application/json',
      ...this.actingFor(),
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

  async graphql(query: string, variables: Record<string, unknown> = {}, extraHeaders: Record<string, string> = {}): Promise<HttpResult> {
    return this.request('POST', '/graphql', { query, variables }, extraHeaders);
  }
}
