/** An answer of the service: status, its JSON object (empty when it sent none), and its text. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/** A registered client of a Paygraph (client id, secret, subscription key), and whom each request acts for. */
export interface Principal {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
  /** Headers naming whom each request acts for: a sales unit, and a PSP its `Psp-Id`. */
  actingFor: Record<string, string>;
}

/** The service refused a client's credentials at `POST /accesstoken/get`. */
export class CredentialsRefused extends Error {
  constructor(
    readonly clientId: string,
    readonly status: number,
  ) {
    super(`the client ${clientId} was refused an access token (${status})`);
  }
}

/** A graph operation the service answered with errors (or not with data). */
export class GraphFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The first error's `extensions.code` (BAD_USER_INPUT, INTERNAL_SERVER_ERROR, ...), when it gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

/**
 * A Paygraph over the network and nothing else: REST and the graph with an access token per client, as a merchant's
 * own code talks to it (the operator's network commands, `trigger` and `listen`, open no database).
 */
export class PaygraphClient {
  private readonly tokens = new Map<string, Promise<string>>();

  constructor(readonly baseUrl: string) {}

  async rest(principal: Principal, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send(method, path, {
      headers: { ...(await this.authorization(principal)), 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** A graph operation; its errors are thrown, naming the operation's first error. */
  async graph<T>(principal: Principal, query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const answer = await this.rest(principal, 'POST', '/graphql', { query, variables });
    // An expired token (the service restarted with another key, or an hour passed): asked for again once.
    if (answer.status === 401) this.forgetToken(principal);
    const errors = answer.body.errors as { message: string; extensions?: { code?: string } }[] | undefined;
    if (answer.status !== 200 || errors?.length || !answer.body.data) {
      const message = `the graph answered ${answer.status}: ${errors?.[0]?.message ?? answer.text.slice(0, 200)}`;
      throw this.graphFailure(message, answer.status, errors?.[0]?.extensions?.code);
    }
    return answer.body.data as T;
  }

  async send(method: string, pathOrUrl: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    const res = await fetch(this.absolute(pathOrUrl), { method, ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = text ? JSON.parse(text) : undefined;
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch {
      // a page: its text is all there is
    }
    return { status: res.status, body, text };
  }

  /** The access token and subscription key headers of a principal; the token is asked for once per client. */
  async authorization(principal: Principal): Promise<Record<string, string>> {
    let token = this.tokens.get(principal.clientId);
    if (!token) {
      token = this.send('POST', '/accesstoken/get', {
        headers: {
          client_id: principal.clientId,
          client_secret: principal.clientSecret,
          'Ocp-Apim-Subscription-Key': principal.subscriptionKey,
        },
      }).then((answer) => {
        if (answer.status !== 200 || typeof answer.body.access_token !== 'string') throw this.refused(principal, answer.status);
        return answer.body.access_token as string;
      });
      // A failed request is not kept: the next one asks again.
      token.catch(() => this.forgetToken(principal));
      this.tokens.set(principal.clientId, token);
    }
    return { Authorization: `Bearer ${await token}`, 'Ocp-Apim-Subscription-Key': principal.subscriptionKey, ...principal.actingFor };
  }

  /** Drops a client's token, so the next request asks for a fresh one (it expired, or the service was replaced). */
  forgetToken(principal: Principal): void {
    this.tokens.delete(principal.clientId);
  }

  /** The error a refused token request throws. */
  protected refused(principal: Principal, status: number): Error {
    return new CredentialsRefused(principal.clientId, status);
  }

  /** The error a failed graph operation throws. */
  protected graphFailure(message: string, status: number, code: string | undefined): Error {
    return new GraphFailure(message, status, code);
  }

  private absolute(pathOrUrl: string): string {
    return /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`;
  }
}

/** The service was not reached: fetch's network failure, or its timeout. */
export function unreachable(error: unknown): error is Error {
  // By name: fetch's errors may come from another realm than this module's TypeError (a VM context, a test runner).
  const name = (error as { name?: unknown } | null)?.name;
  return (name === 'TypeError' && (error as Error).message === 'fetch failed') || name === 'TimeoutError';
}
