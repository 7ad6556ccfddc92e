import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient } from 'graphql-sse';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, eventually } from '../support/subscriber.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, onPostgres } from '../support/test-database.js';

/** issue 37 item 3: subscriptions over HTTP (graphql-sse, Apollo's multipart protocol) beside graphql-ws. */
const EVENTS = `subscription Events($after: ID) {
  paymentEvents(after: $after, names: [CREATED]) { event { eventId reference name } }
}`;
interface PaymentEvent {
  eventId: string;
  reference: string;
  name: string;
}

const MULTIPART_ACCEPT = 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0",application/json';

/** A streamed answer read as text as it arrives, until `stop`. */
class RawStream {
  text = '';
  status = 0;
  headers = new Headers();
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();

  static async open(url: string, init: RequestInit): Promise<RawStream> {
    const stream = new RawStream();
    const res = await fetch(url, { ...init, signal: stream.abort.signal });
    stream.status = res.status;
    stream.headers = res.headers;
    const decoder = new TextDecoder();
    stream.done = (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) stream.text += decoder.decode(chunk, { stream: true });
      } catch {
        // aborted by stop()
      }
    })();
    return stream;
  }

  async until(condition: (text: string) => boolean, what: string): Promise<void> {
    await eventually(() => condition(this.text), what);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  /** Waits for the server to end the stream. */
  ended(): Promise<void> {
    return this.done;
  }
}

describe('refusals, limits, frames', () => {
  let t: TestApp;
  let merchant: MerchantClient;
  const open: RawStream[] = [];

  beforeAll(async () => {
    // A short keep-alive, so a heartbeat arrives while the test watches; two streams a client.
    t = await startTestApp({}, { PAYGRAPH_SUBSCRIPTION_KEEPALIVE_MS: '100', PAYGRAPH_WS_MAX_SUBSCRIPTIONS: '2' });
    merchant = new MerchantClient(t.baseUrl);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.stop()));
    await eventually(() => t.app.services.events.subscriberCount === 0, 'subscriptions to be released');
  });
  afterAll(() => t.close());

  async function sse(body: unknown, headers: Record<string, string>): Promise<RawStream> {
    const stream = await RawStream.open(`${t.baseUrl}/graphql/stream`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    open.push(stream);
    return stream;
  }

  async function multipart(body: unknown, headers: Record<string, string>): Promise<RawStream> {
    const stream = await RawStream.open(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: MULTIPART_ACCEPT },
      body: JSON.stringify(body),
    });
    open.push(stream);
    return stream;
  }

  /** The `next` events' data of an SSE text, with their id lines. */
  function sseEvents(text: string): { id?: string; event: string; data: any }[] {
    return text
      .split('\n\n')
      .filter((block) => /^event: /m.test(block))
      .map((block) => {
        const field = (name: string) => block.match(new RegExp(`^${name}: ?(.*)$`, 'm'))?.[1];
        const data = field('data');
        return { id: field('id'), event: field('event')!, data: data ? JSON.parse(data) : undefined };
      });
  }

  test('SSE: the event id is the SSE id, heartbeats are comments, the rate-limit fields are those of POST /graphql', async () => {
    const stream = await sse({ query: EVENTS }, await connectionParamsOf(merchant));
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('ratelimit-policy')).toBe((await merchant.graphql('{ __typename }')).headers.get('ratelimit-policy'));
    await eventually(() => t.app.services.events.subscriberCount === 1, 'the subscription to register');
    const reference = newReference('sse');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    await stream.until((text) => text.includes(reference), 'the event');
    const [next] = sseEvents(stream.text);
    expect(next!.event).toBe('next');
    expect(next!.data.data.paymentEvents.event.reference).toBe(reference);
    expect(next!.id).toBe(next!.data.data.paymentEvents.event.eventId);
    await stream.until((text) => text.includes('\n:\n\n') || text.startsWith(':\n\n'), 'a heartbeat comment');
  });

  test('multipart: the stream opens with the boundary, each part ends with it, and the heartbeat is an empty {} part', async () => {
    const stream = await multipart({ query: EVENTS }, await connectionParamsOf(merchant));
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    await eventually(() => t.app.services.events.subscriberCount === 1, 'the subscription to register');
    const reference = newReference('mp');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    await stream.until((text) => text.includes(reference), 'the event');
    await stream.until((text) => text.includes('\r\n\r\n{}\r\n--graphql'), 'a heartbeat part');
    const parts = stream.text
      .split('\r\n--graphql')
      .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4))
      .filter((body) => body.startsWith('{"payload"'));
    expect(JSON.parse(parts[0]!).payload.data.paymentEvents.event.reference).toBe(reference);
    expect(stream.text.startsWith('\r\n--graphql\r\ncontent-type: application/json')).toBe(true);
  });

  test('refused: no credentials, a query, a bad Last-Event-ID, a document past the limits; each on the right face', async () => {
    const anonymous = await sse({ query: EVENTS }, {});
    await anonymous.ended();
    const refused = sseEvents(anonymous.text);
    expect(refused.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(refused[0]!.data.errors[0].extensions.code).toBe('UNAUTHENTICATED');

    const credentials = await connectionParamsOf(merchant);
    const query = await sse({ query: '{ __typename }' }, credentials);
    await query.ended();
    expect(sseEvents(query.text)[0]!.data.errors[0]).toMatchObject({
      message: expect.stringContaining('Send query operations to POST /graphql'),
      extensions: { code: 'BAD_REQUEST' },
    });

    const deep = `subscription { paymentEvents { event { ${'payment { events { edges { node { '.repeat(12)}eventId${' } } } }'.repeat(12)} } } }`;
    const tooDeep = await sse({ query: deep }, credentials);
    await tooDeep.ended();
    expect(sseEvents(tooDeep.text)[0]!.data.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const badId = await sse({ query: EVENTS }, { ...credentials, 'last-event-id': 'x' });
    expect(badId.status).toBe(400);

    const multipartQuery = await multipart({ query: '{ __typename }' }, credentials);
    await multipartQuery.ended();
    expect(multipartQuery.status).toBe(400);
    expect(JSON.parse(multipartQuery.text).errors[0].extensions.code).toBe('BAD_REQUEST');

    const unknownAfter = await multipart({ query: EVENTS, variables: { after: '999999999' } }, credentials);
    await unknownAfter.ended();
    expect(unknownAfter.text).toContain('BAD_USER_INPUT');
  });

  test('a token in the URL authenticates nothing: SSE (GET and POST) and multipart refuse it, by whatever name it comes', async () => {
    const { Authorization: authorization, ...otherHeaders } = await connectionParamsOf(merchant);
    const token = authorization!.replace(/^Bearer /, '');
    // Every credential, under the names a client might put in a query string: the stream's headers lack the token.
    const inUrl = new URLSearchParams({ token, access_token: token, accessToken: token, jwt: token, bearer: token, auth: token });
    for (const [name, value] of Object.entries({ ...otherHeaders, Authorization: authorization! })) {
      inUrl.set(name, value);
      inUrl.set(name.toLowerCase(), value);
    }
    const refusals: { face: string; status: number; code: unknown }[] = [];
    // The first thing a stream says decides: a refusal, or (had it been served) a heartbeat or the stream's opening.
    const firstWords = async (stream: RawStream) => {
      open.push(stream);
      await stream.until((text) => text.length > 0, 'the stream to answer');
    };
    const viaSse = async (face: string, stream: RawStream) => {
      await firstWords(stream);
      refusals.push({ face, status: stream.status, code: sseEvents(stream.text)[0]?.data.errors?.[0].extensions.code });
    };
    await viaSse(
      'SSE POST',
      await RawStream.open(`${t.baseUrl}/graphql/stream?${inUrl}`, {
        method: 'POST',
        headers: { ...otherHeaders, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: EVENTS }),
      }),
    );
    const get = new URLSearchParams(inUrl);
    get.set('query', EVENTS);
    await viaSse(
      'SSE GET',
      await RawStream.open(`${t.baseUrl}/graphql/stream?${get}`, { headers: { ...otherHeaders, accept: 'text/event-stream' } }),
    );
    const viaMultipart = await RawStream.open(`${t.baseUrl}/graphql?${inUrl}`, {
      method: 'POST',
      headers: { ...otherHeaders, 'content-type': 'application/json', accept: MULTIPART_ACCEPT },
      body: JSON.stringify({ query: EVENTS }),
    });
    await firstWords(viaMultipart);
    const multipartCode = viaMultipart.status === 200 ? undefined : JSON.parse(viaMultipart.text).errors[0].extensions.code;
    refusals.push({ face: 'multipart', status: viaMultipart.status, code: multipartCode });
    expect(refusals).toEqual([
      { face: 'SSE POST', status: 200, code: 'UNAUTHENTICATED' },
      { face: 'SSE GET', status: 200, code: 'UNAUTHENTICATED' },
      { face: 'multipart', status: 401, code: 'UNAUTHENTICATED' },
    ]);
    expect(t.app.services.events.subscriberCount).toBe(0);
    // The same requests with the token in its header are served: the URL's parameters were all that was missing.
    const served = await RawStream.open(`${t.baseUrl}/graphql?${inUrl}`, {
      method: 'POST',
      headers: { ...otherHeaders, authorization: authorization!, 'content-type': 'application/json', accept: MULTIPART_ACCEPT },
      body: JSON.stringify({ query: EVENTS }),
    });
    open.push(served);
    expect(served.status).toBe(200);
    await eventually(() => t.app.services.events.subscriberCount === 1, 'the subscription with its header');
  });

  test('a client holds as many streams as a socket holds subscriptions, on both transports together', async () => {
    const credentials = await connectionParamsOf(merchant);
    await sse({ query: EVENTS }, credentials);
    await multipart({ query: EVENTS }, credentials);
    await eventually(() => t.app.services.events.subscriberCount === 2, 'two subscriptions');
    const third = await sse({ query: EVENTS }, credentials);
    await third.ended();
    expect(sseEvents(third.text)[0]!.data.errors[0].extensions.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    const fourth = await multipart({ query: EVENTS }, credentials);
    expect(fourth.status).toBe(429);
    await Promise.all(open.splice(0).map((s) => s.stop()));
    await eventually(() => t.app.services.events.subscriberCount === 0, 'the streams to end');
    const again = await sse({ query: EVENTS }, credentials);
    await eventually(() => t.app.services.events.subscriberCount === 1, 'a stream once the others ended');
    expect(again.status).toBe(200);
  });
});

describe('resuming after the server restarts', () => {
  test('the graphql-sse client (Last-Event-ID from its headers function) and Apollo Client (after:) miss nothing and get nothing twice', async () => {
    // PGlite keeps its data in a directory the second instance opens; PostgreSQL in the test's database.
    const database = await createTestDatabase({ migrated: true, inDirectory: true });
    const overrides = onPostgres ? { databaseUrl: database.databaseUrl } : { dataDir: database.dataDir };
    let t = await startTestApp(overrides);
    const port = Number(new URL(t.baseUrl).port);
    const merchant = new MerchantClient(t.baseUrl);
    const credentials = await connectionParamsOf(merchant);

    // graphql-sse: the headers function sends the last event id it saw; reconnecting waits for the test's go-ahead.
    let reconnect: Promise<void> = Promise.resolve();
    let allowReconnect = () => undefined as void;
    let lastSeen: string | undefined;
    const viaSse: PaymentEvent[] = [];
    const sseFailures: unknown[] = [];
    const sseClient = createClient({
      url: `${t.baseUrl}/graphql/stream`,
      headers: async () => {
        await reconnect;
        return lastSeen ? { ...credentials, 'Last-Event-ID': lastSeen } : credentials;
      },
      retryAttempts: 1000,
      retry: () => new Promise((resolve) => setTimeout(resolve, 50)),
    });
    const stopSse = sseClient.subscribe<{ paymentEvents: { event: PaymentEvent } }>(
      { query: EVENTS },
      {
        next: (result) => {
          const event = result.data!.paymentEvents.event;
          viaSse.push(event);
          lastSeen = event.eventId;
        },
        error: (error) => sseFailures.push(error),
        complete: () => undefined,
      },
    );

    // Apollo Client: resubscribes itself, with after: the last event it saw, when the test says so.
    const apollo = new ApolloClient({
      link: new HttpLink({ uri: `${t.baseUrl}/graphql`, headers: credentials }),
      cache: new InMemoryCache(),
    });
    const viaApollo: PaymentEvent[] = [];
    const apolloEnds: unknown[] = [];
    let apolloSubscription: { unsubscribe(): void } | undefined;
    const subscribeApollo = () => {
      const after = viaApollo.at(-1)?.eventId;
      apolloSubscription = apollo.subscribe({ query: gql(EVENTS), variables: after ? { after } : {} }).subscribe({
        next: (result) => {
          if (result.error) apolloEnds.push(result.error);
          else if (result.data) viaApollo.push((result.data as { paymentEvents: { event: PaymentEvent } }).paymentEvents.event);
        },
        error: (error) => apolloEnds.push(error),
        complete: () => apolloEnds.push('complete'),
      });
    };
    subscribeApollo();

    try {
      await eventually(() => t.app.services.events.subscriberCount === 2, 'both subscriptions');
      const before = newReference('before');
      expect((await merchant.createPayment({ reference: before })).status).toBe(201);
      await eventually(() => viaSse.length === 1 && viaApollo.length === 1, 'the first event on both');

      reconnect = new Promise((resolve) => (allowReconnect = resolve));
      // The drain ends both streams at once (it is not left waiting for its deadline): the SSE stream without
      // `complete`, the multipart one with a restart error.
      expect((await t.app.shutdown(CONDITION_DEADLINE_MS)).requestsCut).toBe(false);
      await eventually(() => apolloEnds.length > 0, 'Apollo Client to see its stream end');
      t = await startTestApp(overrides, {}, { port });
      // Events committed before either client is back: they come from the resume, not live.
      const during = [newReference('during-1'), newReference('during-2')];
      for (const reference of during) expect((await merchant.createPayment({ reference })).status).toBe(201);
      allowReconnect();
      subscribeApollo();
      await eventually(() => t.app.services.events.subscriberCount === 2, 'both subscriptions on the new instance');
      const after = newReference('after');
      expect((await merchant.createPayment({ reference: after })).status).toBe(201);

      const expected = [before, ...during, after];
      await eventually(() => viaSse.length >= 4 && viaApollo.length >= 4, 'every event on both');
      expect(viaSse.map((e) => e.reference)).toEqual(expected);
      expect(viaApollo.map((e) => e.reference)).toEqual(expected);
      expect(viaApollo.map((e) => e.eventId)).toEqual(viaSse.map((e) => e.eventId));
      expect(sseFailures).toEqual([]);
      expect(String(apolloEnds[0])).toMatch(/restarting/);
    } finally {
      stopSse();
      sseClient.dispose();
      apolloSubscription?.unsubscribe();
      apollo.stop();
      await t.close();
      await database.drop();
    }
  }, 60_000);
});
