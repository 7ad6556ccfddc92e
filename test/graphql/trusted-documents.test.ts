import { createHash } from 'node:crypto';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { PGlite } from '@electric-sql/pglite';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { runCli } from '../../src/cli.js';
import { dashboardDocuments } from '../../src/pages/dashboard-documents.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { OperatorClient } from '../support/operator-client.js';
import { migratedPgliteDump } from '../support/pglite-dump.js';
import { connectionParamsOf, eventually, graphqlWsUrl } from '../support/subscriber.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';

/**
 * issue 37 item 4: with PAYGRAPH_TRUSTED_DOCUMENTS=required, every operation on every transport (POST /graphql,
 * graphql-ws, SSE on /graphql/stream, Apollo's multipart on POST /graphql) must name a registered document; documents
 * are registered by the command line and by the operator graph, in both manifest formats; the dashboard's own are
 * registered at start. One app, its database prepared first so the command line registers into it before it starts;
 * last, a production app on the same database (PAYGRAPH_ENV=production) requires them as well.
 */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const PAYMENT = 'query TrustedPayment($r: String!) { payment(reference: $r) { reference state } }';
const EVENTS = 'subscription TrustedEvents($after: ID) { paymentEvents(after: $after, names: [CREATED]) { event { eventId reference } } }';
const UNITS = 'query TrustedUnits { salesUnits { msn } }';
/** The operator's own mutation is a document like any other: registered by the command line first (the bootstrap). */
const REGISTER =
  'mutation Register($m: String!) { registerTrustedDocuments(input: { manifest: $m }) { listed registered ids userErrors { code message } } }';
/** graphql-codegen's client preset names documents by whatever hash it was told: here sha1 (its old default). */
const CODEGEN_ID = createHash('sha1').update(PAYMENT).digest('hex');

let t: TestApp;
let database: TestDatabase;
let dataDir: string | undefined;
let manifestDir: string;
let merchant: MerchantClient;
let operator: OperatorClient;
let reference: string;

/** The command line's own entry, against the test's database, with its output captured. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = { code: 0, stdout: '', stderr: '' };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((run.stdout += String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((run.stderr += String(chunk)), true));
  try {
    const env = onPostgres ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: dataDir };
    run.code = await runCli(args, { ...env, PAYGRAPH_LOG_REQUESTS: 'false' });
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return run;
}

beforeAll(async () => {
  database = await createTestDatabase({ migrated: true });
  if (!onPostgres) {
    dataDir = await mkdtemp(join(tmpdir(), 'paygraph-trusted-'));
    await (await PGlite.create({ dataDir, loadDataDir: await migratedPgliteDump() })).close();
  }
  manifestDir = await mkdtemp(join(tmpdir(), 'paygraph-manifest-'));
  // Apollo's persisted query manifest, registered by the command line before the service starts.
  const apollo = {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: [
      { id: sha256(EVENTS), name: 'TrustedEvents', type: 'subscription', body: EVENTS },
      { id: sha256(REGISTER), name: 'Register', type: 'mutation', body: REGISTER },
    ],
  };
  await writeFile(join(manifestDir, 'apollo.json'), JSON.stringify(apollo));
  const registered = await cli('register-documents', '--file', join(manifestDir, 'apollo.json'), '--json');
  expect(registered).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(registered.stdout)).toEqual({ listed: 2, registered: 2, ids: [sha256(EVENTS), sha256(REGISTER)] });

  t = await startTestApp(onPostgres ? { databaseUrl: database.databaseUrl } : { dataDir }, { PAYGRAPH_TRUSTED_DOCUMENTS: 'required' });
  merchant = new MerchantClient(t.baseUrl);
  operator = new OperatorClient(t.baseUrl);
  reference = newReference('trusted');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (manifestDir) await rm(manifestDir, { recursive: true, force: true });
});

const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;

/** The first result of a subscription over graphql-ws, or its errors; the subscription is stopped after it. */
function firstResult(
  client: ReturnType<typeof createClient>,
  payload: Record<string, unknown>,
): Promise<{ data?: any; errors?: readonly { extensions?: { code?: string } }[] }> {
  return new Promise((resolve) => {
    const stop = client.subscribe(payload as never, {
      next: (result) => {
        stop();
        resolve(result);
      },
      error: (errors) => resolve({ errors: errors as never }),
      complete: () => undefined,
    });
  });
}

test("registration: the operator graph takes codegen's format and Apollo's; a known id with other text is refused; the command line too", async () => {
  const register = async (manifest: unknown) =>
    operator.raw(
      'POST',
      '/graphql',
      { documentId: sha256(REGISTER), variables: { m: typeof manifest === 'string' ? manifest : JSON.stringify(manifest) } },
      await operator.headers(),
    );
  const codegen = await register({ [CODEGEN_ID]: PAYMENT, [sha256(UNITS)]: UNITS });
  expect(codegen.body.data.registerTrustedDocuments).toEqual({
    listed: 2,
    registered: 2,
    ids: [CODEGEN_ID, sha256(UNITS)],
    userErrors: [],
  });
  // Again: nothing new, nothing refused.
  expect((await register({ [CODEGEN_ID]: PAYMENT })).body.data.registerTrustedDocuments).toMatchObject({ registered: 0, userErrors: [] });
  const refusals = await Promise.all([
    register({ [CODEGEN_ID]: '{ __typename }' }),
    register('not json'),
    register({ x: '{ unclosed' }),
    register({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'abc', name: 'A', type: 'query', body: UNITS }] }),
  ]);
  expect(refusals.map((r) => r.body.data.registerTrustedDocuments.userErrors[0].code)).toEqual([
    'OPERATOR_CONFLICT',
    'OPERATOR_INVALID',
    'OPERATOR_INVALID',
    'OPERATOR_INVALID',
  ]);
  // A merchant may not register: the operator's field, even by its registered document.
  const byMerchant = await merchant.raw(
    'POST',
    '/graphql',
    { documentId: sha256(REGISTER), variables: { m: '{}' } },
    await merchant.headers(),
  );
  expect({ status: byMerchant.status, code: codeOf(byMerchant.body) }).toEqual({ status: 403, code: 'FORBIDDEN' });
  const cliRefused = await cli('register-documents', '--file', join(manifestDir, 'missing.json'));
  expect(cliRefused).toMatchObject({ code: 1, stderr: expect.stringContaining('Cannot read') });
  const events = await t.app.services.orm.em
    .fork()
    .getConnection()
    .execute(`select payload from domain_event where name = 'operator.documents.registered.v1' order by id`);
  expect(events.map((e: any) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).subject.documents)).toEqual(['2', '2']);
});

describe('with documents required', () => {
  const post = async (body: unknown) => merchant.raw('POST', '/graphql', body, await merchant.headers());

  test('POST /graphql: named by documentId or persistedQuery hash runs; text, an unknown id and an APQ registration are refused', async () => {
    const byId = await post({ documentId: CODEGEN_ID, variables: { r: reference } });
    expect(byId.body).toEqual({ data: { payment: { reference, state: 'CREATED' } } });
    const byHash = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(UNITS) } } });
    expect(byHash.body.data.salesUnits).toEqual([{ msn: '123456' }]);
    const byGet = await merchant.raw('GET', `/graphql?documentId=${sha256(UNITS)}`, undefined, {
      ...(await merchant.headers()),
      'apollo-require-preflight': 'true',
    });
    expect(byGet.body.data.salesUnits).toEqual([{ msn: '123456' }]);

    const adHoc = await post({ query: PAYMENT, variables: { r: reference } });
    expect({ status: adHoc.status, code: codeOf(adHoc.body), data: adHoc.body.data }).toEqual({
      status: 400,
      code: 'PERSISTED_QUERY_ID_REQUIRED',
      data: undefined,
    });
    expect(adHoc.body.errors[0].message).toMatch(/registered documents only/);
    const unknown = await post({ documentId: 'f'.repeat(64) });
    expect({ status: unknown.status, code: codeOf(unknown.body) }).toEqual({ status: 400, code: 'PERSISTED_QUERY_NOT_FOUND' });
    // Apollo's automatic persisted queries would register this text under its hash: refused, and not registered.
    const text = '{ salesUnits { name } }';
    const apq = await post({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
    expect(codeOf(apq.body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    const again = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
    expect(codeOf(again.body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    // A registered id beside another text is refused, not run as either.
    const mismatch = await post({ documentId: sha256(UNITS), query: text });
    expect(codeOf(mismatch.body)).toBe('BAD_REQUEST');
  });

  test('graphql-ws: a registered subscription named beside an empty query runs; a text is refused', async () => {
    const client = createClient({
      url: graphqlWsUrl(t.baseUrl),
      webSocketImpl: WebSocket,
      connectionParams: await connectionParamsOf(merchant),
    });
    try {
      const first = (payload: Record<string, unknown>) => firstResult(client, payload);
      const named = await first({ query: '', documentId: sha256(EVENTS), variables: { after: '0' } });
      expect(named.data.paymentEvents.event.reference).toEqual(expect.any(String));
      const adHoc = await first({ query: EVENTS, variables: { after: '0' } });
      expect(adHoc.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    } finally {
      await client.dispose();
    }
  });

  test('SSE and multipart: a registered subscription named by id streams; a text is refused in each shape', async () => {
    const headers = await merchant.headers();
    const stream = async (path: string, accept: string, body: unknown) => {
      const abort = new AbortController();
      const res = await fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, Accept: accept },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      let text = '';
      const reader = (async () => {
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
        } catch {
          // aborted below
        }
      })();
      return { status: res.status, read: () => text, stop: async () => (abort.abort(), await reader), reader };
    };
    const named = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(EVENTS) } }, variables: { after: '0' } };
    for (const [path, accept] of [
      ['/graphql/stream', 'text/event-stream'],
      ['/graphql', 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0",application/json'],
    ] as const) {
      const accepted = await stream(path, accept, named);
      await eventually(() => accepted.read().includes('"paymentEvents"'), `${path}: an event of the registered subscription`);
      await accepted.stop();
      const refused = await stream(path, accept, { query: EVENTS, variables: { after: '0' } });
      await refused.reader;
      expect({ path, refused: refused.read() }).toEqual({ path, refused: expect.stringContaining('PERSISTED_QUERY_ID_REQUIRED') });
    }
    await eventually(() => t.app.services.events.subscriberCount === 0, 'streams released');
  });

  test("the dashboard's documents were registered at start, and run by the id its bundle sends", async () => {
    const documents = dashboardDocuments();
    expect(documents.size).toBeGreaterThan(10);
    // The bundle's manifest is the same list (the build computes it with the same function).
    expect(JSON.parse(await readFile(join(process.cwd(), 'dist/pages/dashboard-documents.json'), 'utf8'))).toEqual(
      Object.fromEntries(documents),
    );
    for (const [id, text] of documents) {
      if (text.trimStart().startsWith('subscription')) continue;
      const res = await post({ documentId: id, variables: {} });
      // Run past the trusted-document step: at most a variable the test did not give is refused.
      expect({ id, code: codeOf(res.body) ?? 'ran' }).toEqual({ id, code: expect.stringMatching(/^(ran|BAD_USER_INPUT)$/) });
    }
    // The IDE (test environment) says documents are required and offers the registered ones, by text and id.
    const ide = await fetch(`${t.baseUrl}/graphql`, { headers: { Accept: 'text/html' } });
    const page = await ide.text();
    expect(page).toContain('"required":true');
    for (const id of [sha256(EVENTS), CODEGEN_ID, ...[...documents.keys()].slice(0, 3)]) expect(page).toContain(`"id":"${id}"`);
    const units = [...documents].find(([, text]) => text.startsWith('query SalesUnits'))!;
    // Sent with an empty query beside the id, as the IDE's fetcher does.
    expect((await post({ query: '', documentId: units[0] })).body.data.salesUnits).toHaveLength(1);
    expect((await post({ documentId: units[0] })).body).toEqual({ data: { salesUnits: [{ msn: '123456', name: expect.any(String) }] } });
  });
});

describe('required in production', () => {
  /** A query registered for production only, by the command line, before the production service starts. */
  const PRODUCTION_UNITS = 'query ProductionUnits { salesUnits { msn } }';
  let production: MerchantClient;

  beforeAll(async () => {
    // The same database (the embedded one is one process's: the test environment's app lets go of it first).
    await t.close();
    await writeFile(join(manifestDir, 'production.json'), JSON.stringify({ [sha256(PRODUCTION_UNITS)]: PRODUCTION_UNITS }));
    expect(await cli('register-documents', '--file', join(manifestDir, 'production.json'))).toMatchObject({ code: 0, stderr: '' });
    t = await startProductionApp(onPostgres ? { databaseUrl: database.databaseUrl } : { dataDir }, {
      PAYGRAPH_TRUSTED_DOCUMENTS: 'required',
    });
    expect(t.app.services.config.env).toBe('production');
    production = new MerchantClient(t.baseUrl);
  });

  test('POST /graphql: a registered document runs, by documentId or persistedQuery hash; a text is refused and not registered', async () => {
    const post = async (body: unknown) => production.raw('POST', '/graphql', body, await production.headers());
    expect((await post({ documentId: sha256(PRODUCTION_UNITS) })).body).toEqual({ data: { salesUnits: [{ msn: '123456' }] } });
    const byHash = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCTION_UNITS) } } });
    expect(byHash.body).toEqual({ data: { salesUnits: [{ msn: '123456' }] } });
    const adHoc = await post({ query: PRODUCTION_UNITS });
    expect({ status: adHoc.status, code: codeOf(adHoc.body), data: adHoc.body.data }).toEqual({
      status: 400,
      code: 'PERSISTED_QUERY_ID_REQUIRED',
      data: undefined,
    });
    const text = '{ salesUnits { name } }';
    expect(codeOf((await post({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } })).body)).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
    expect(codeOf((await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } })).body)).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });

  test('graphql-ws: a registered subscription runs; a text is refused', async () => {
    const client = createClient({
      url: graphqlWsUrl(t.baseUrl),
      webSocketImpl: WebSocket,
      connectionParams: await connectionParamsOf(production),
    });
    try {
      const first = (payload: Record<string, unknown>) => firstResult(client, payload);
      // The payment made in the test environment's run is the unit's first event: a resume from the start brings it.
      const named = await first({ query: '', documentId: sha256(EVENTS), variables: { after: '0' } });
      expect(named.data.paymentEvents.event.reference).toBe(reference);
      const adHoc = await first({ query: EVENTS, variables: { after: '0' } });
      expect(adHoc.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    } finally {
      await client.dispose();
    }
  });

  test("SSE and multipart: a text is refused, in each one's shape", async () => {
    for (const [path, accept] of [
      ['/graphql/stream', 'text/event-stream'],
      ['/graphql', 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0",application/json'],
    ] as const) {
      // Refused before any stream starts, so the answer ends at once.
      const refused = await fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...(await production.headers()), Accept: accept },
        body: JSON.stringify({ query: EVENTS, variables: { after: '0' } }),
      });
      expect({ path, refused: await refused.text() }).toEqual({ path, refused: expect.stringContaining('PERSISTED_QUERY_ID_REQUIRED') });
    }
  });
});
