/** What a merchant's API client signs in with; kept in memory only, never in storage or a URL. */
export interface Credentials {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
}

interface Token {
  value: string;
  expiresAt: number;
}

/** Renew this long before expiry, so a request never carries a token about to run out. */
const MARGIN_MS = 60_000;

/** Access tokens from POST /accesstoken/get: credentials in headers, a fresh token whenever the last one runs out. */
export class TokenSource {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;

  constructor(private readonly credentials: Credentials) {}

  get subscriptionKey(): string {
    return this.credentials.subscriptionKey;
  }

  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - MARGIN_MS > Date.now()) return this.current.value;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    this.current = await this.pending;
    return this.current.value;
  }

  /** Drops the cached token: the next request signs in again. */
  async fresh(): Promise<string> {
    this.current = undefined;
    return this.token();
  }

  private async fetchToken(): Promise<Token> {
    const response = await fetch('/accesstoken/get', {
      method: 'POST',
      headers: {
        client_id: this.credentials.clientId,
        client_secret: this.credentials.clientSecret,
        'Ocp-Apim-Subscription-Key': this.credentials.subscriptionKey,
      },
    });
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: string | number;
      title?: string;
      detail?: string;
    };
    if (!response.ok || !body.access_token) throw new Error(body.detail ?? body.title ?? `Sign-in failed (${response.status})`);
    return { value: body.access_token, expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000 };
  }
}
