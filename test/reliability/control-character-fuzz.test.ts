import {
  getNamedType,
  isInputObjectType,
  isLeafType,
  isNonNullType,
  isListType,
  isScalarType,
  print,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { forkEm } from '../../src/platform/db/orm.js';
import { buildSchema } from '../../src/platform/graph/schema.js';
import { forEachConcurrently } from '../support/concurrently.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { OperatorClient } from '../support/operator-client.js';
import { WalletClient } from '../support/wallet-client.js';
import { PartnerClient } from '../support/partner-client.js';
import { PspClient, TEST_PSP } from '../support/psp-client.js';
import { connectionParamsOf, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * Issue 20 point 2: U+0000 and the other C0 control characters (but tab, CR and LF) in any string input are refused
 * where input enters, with a 4xx naming the field, on every REST route, page and graph operation; nothing is written.
 */
let t: TestApp;
let merchant: MerchantClient;
let partner: PartnerClient;
let psp: PspClient;
let operator: OperatorClient;

const CONTROL = ['\u0000', '\u0001', '\u001b', '\u001f'];
const SYSTEM_HEADERS = {
  'Svc-System-Name': 'fuzz',
  'Svc-System-Version': '1',
  'Svc-System-Plugin-Name': 'fc',
  'Svc-System-Plugin-Version': '1',
};

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  partner = new PartnerClient(t.baseUrl, MERCHANT_A.msn);
  psp = new PspClient(t.baseUrl);
  operator = new OperatorClient(t.baseUrl);
});
afterAll(() => t.close());

/**
 * Rows in every table of the application's schema: what "nothing written" is measured by. Left out: the API-quality
 * counters, which count every answer by design (refusals included), and the nightly PSP batch's run rows, which the
 * scheduler writes on its own.
 */
const NOT_INPUT = ['api_quality_count', 'psp_batch_run'];
async function rowCounts(): Promise<Record<string, number>> {
  const em = forkEm(t.app.services.orm);
  const tables = await em.execute<{ table_name: string }[]>(
    `select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
     and table_name not like 'mikro_orm%'`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables.filter((row) => !NOT_INPUT.includes(row.table_name))) {
    const [row] = await em.execute<{ n: string | number }[]>(`select count(*) as n from "${table_name}"`);
    counts[table_name] = Number(row!.n);
  }
  return counts;
}

/** The credentials each interface's routes take, so a request reaches its parameters and body. */
async function headersFor(pattern: string): Promise<Record<string, string>> {
  const idempotency = { 'Idempotency-Key': `control-${Math.random()}` };
  if (pattern.startsWith('/psp/v3/') || pattern.startsWith('/merchant-management/psp/'))
    return psp.headers({ 'Merchant-Serial-Number': TEST_PSP.merchantMsn, ...idempotency });
  if (pattern.startsWith('/management/') || pattern.startsWith('/partner-api/'))
    return partner.headers({ ...SYSTEM_HEADERS, ...idempotency });
  if (pattern.startsWith('/checkout/v3/'))
    return {
      'Content-Type': 'application/json',
      client_id: MERCHANT_A.clientId,
      client_secret: MERCHANT_A.clientSecret,
      'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
      'Merchant-Serial-Number': MERCHANT_A.msn,
    };
  return merchant.headers(idempotency);
}

interface SchemaNode {
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

/** Every place a string goes in a body schema, as the path of keys (array items at 0, a map's values under `k`). */
function stringPaths(node: SchemaNode, path: string[] = [], depth = 0): string[][] {
  if (depth > 8) return [];
  if (node.type === 'string' || node.anyOf?.some((b) => b.type === 'string')) return [path];
  if (node.items) return stringPaths(node.items, [...path, '0'], depth + 1);
  const out: string[][] = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) out.push(...stringPaths(child, [...path, key], depth + 1));
  for (const child of Object.values(node.patternProperties ?? {})) out.push(...stringPaths(child, [...path, 'k'], depth + 1));
  return out;
}

function bodyWith(path: string[], value: string): unknown {
  return path.reduceRight<unknown>((inner, key) => (/^\d+$/.test(key) ? [inner] : { [key]: inner }), value);
}

function dotted(path: string[]): string {
  return path.reduce((name, key) => (/^\d+$/.test(key) ? `${name}[${key}]` : name ? `${name}.${key}` : key), '');
}

async function expectRefused(what: string, res: Response, field?: string): Promise<'named' | 'refused'> {
  const text = await res.text();
  expect([what, res.status]).toEqual([what, expect.any(Number)]);
  if (res.status < 400 || res.status >= 500) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return field !== undefined && res.status === 400 && text.includes(field) && text.includes('control characters') ? 'named' : 'refused';
}

test('every string field of every REST body, every path and query parameter and every page form: 4xx, nothing written', async () => {
  const before = await rowCounts();
  const routes = t.app.router.routes.filter(
    (r) => !['GET /dashboard', 'GET /graphql', 'GET /assets/{file}'].includes(`${r.method} ${r.pattern}`),
  );
  // Every request first (each route's credentials fetched once), then sent FUZZ_CONCURRENCY at a time.
  const requests: { what: string; path: string; init: RequestInit; field: string }[] = [];
  let fields = 0;
  for (const [index, route] of routes.entries()) {
    const control = CONTROL[index % CONTROL.length]!;
    const headers = await headersFor(route.pattern);
    const name = `${route.method} ${route.pattern}`;
    const init = (extra: RequestInit = {}): RequestInit => ({ method: route.method, headers, ...extra });
    const params = [...route.pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const plain = route.pattern.replace(/\{\w+\}/g, 'x');
    // Each path parameter in turn.
    for (const param of params) {
      const path = route.pattern.replace(/\{(\w+)\}/g, (_, name: string) => (name === param ? encodeURIComponent(`a${control}b`) : 'x'));
      requests.push({ what: `${name} {${param}}`, path, init: init(), field: param });
    }
    // A query parameter (the pages' token, a list's filter).
    requests.push({ what: `${name} ?token`, path: `${plain}?token=${encodeURIComponent(control)}`, init: init(), field: 'token' });
    if (route.method === 'GET' || route.method === 'DELETE') continue;
    // A form post, as the pages' forms send.
    requests.push({
      what: `${name} form`,
      path: plain,
      init: init({
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: `t${control}`, phoneNumber: `4791234567${control}` }).toString(),
      }),
      field: 'token',
    });
    // Every string field of its declared body.
    const schema = 'body' in route && route.body ? (route.body.jsonSchema as SchemaNode) : undefined;
    for (const path of schema ? stringPaths(schema) : []) {
      fields++;
      requests.push({
        what: `${name} ${dotted(path)}`,
        path: plain,
        init: init({ body: JSON.stringify(bodyWith(path, `a${control}b`)) }),
        field: dotted(path),
      });
    }
  }
  let named = 0;
  await forEachConcurrently(requests, async ({ what, path, init, field }) => {
    if ((await expectRefused(what, await fetch(t.baseUrl + path, init), field)) === 'named') named++;
  });
  // Most requests got past credentials and were refused for the character, naming the field.
  expect(fields).toBeGreaterThan(100);
  expect(named).toBeGreaterThan(fields);
  expect(await rowCounts()).toEqual(before);
}, 240_000);

test('a control character in a header is refused by the HTTP parser, before any route', async () => {
  const { request } = await import('node:http');
  const url = new URL(t.baseUrl);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/epayment/v1/payments/x', method: 'GET' });
    // Node's client refuses to send one; written on the socket as a hostile client would.
    req.on('socket', (socket) => {
      socket.write('GET /epayment/v1/payments/x HTTP/1.1\r\nHost: x\r\nMerchant-Serial-Number: 12\u00003456\r\n\r\n');
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
        const match = /^HTTP\/1\.1 (\d+)/.exec(answer);
        if (match) {
          socket.destroy();
          resolve(Number(match[1]));
        }
      });
    });
    req.on('error', (error) => (/socket hang up|ECONNRESET/.test(String(error)) ? undefined : reject(error)));
  });
  expect(status).toBe(400);
});

describe('the graph', () => {
  const schema = buildSchema([]);

  /** Every place a string goes in an argument, as a path into the variable (lists at 0), up to a few levels deep. */
  function argumentStringPaths(type: GraphQLInputType, path: string[] = [], depth = 0): string[][] {
    if (depth > 4) return [];
    if (isNonNullType(type)) return argumentStringPaths(type.ofType, path, depth);
    if (isListType(type)) return argumentStringPaths(type.ofType, [...path, '0'], depth + 1);
    if (isScalarType(type)) return ['String', 'ID'].includes(type.name) || !['Int', 'Float', 'Boolean'].includes(type.name) ? [path] : [];
    if (isLeafType(type)) return [];
    if (!isInputObjectType(type)) return [];
    return Object.values(type.getFields()).flatMap((field) => argumentStringPaths(field.type, [...path, field.name], depth + 1));
  }

  function operations(): { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> }[] {
    const out: { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> }[] = [];
    for (const kind of ['query', 'mutation'] as const) {
      const root = (kind === 'query' ? schema.getQueryType() : schema.getMutationType()) as GraphQLObjectType | null;
      for (const field of Object.values(root?.getFields() ?? {})) out.push({ kind, field });
    }
    return out;
  }

  function documentFor(kind: string, field: GraphQLField<unknown, unknown>): string {
    const args = field.args as readonly GraphQLArgument[];
    const definitions = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const call = args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
    const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
    return `${kind}${definitions ? `(${definitions})` : ''} { ${field.name}${call}${selection} }`;
  }

  test('every string in every argument of every query and mutation, as a variable: 400 BAD_USER_INPUT naming it', async () => {
    const before = await rowCounts();
    const merchantHeaders = await merchant.headers();
    // The operator's fields serve only the operator's client (a merchant is refused them before their input is read).
    const operatorHeaders = await operator.headers();
    // So do the wallet's fields the wallet app's client (issue 35).
    const walletHeaders = await new WalletClient(t.baseUrl).headers();
    const requests: { field: string; headers: Record<string, string>; body: string; name: string }[] = [];
    for (const { kind, field } of operations()) {
      const operatorOnly = field.astNode?.directives?.some((d) => print(d) === '@principals(kinds: [OPERATOR])');
      const walletOnly = field.astNode?.directives?.some((d) => print(d) === '@principals(kinds: [WALLET])');
      const headers = operatorOnly ? operatorHeaders : walletOnly ? walletHeaders : merchantHeaders;
      for (const argument of field.args) {
        for (const path of argumentStringPaths(argument.type)) {
          const control = CONTROL[requests.length % CONTROL.length]!;
          const value = bodyWith(path, `a${control}b`);
          const body = JSON.stringify({ query: documentFor(kind, field), variables: { [argument.name]: value } });
          requests.push({ field: field.name, headers, body, name: `$${dotted([argument.name, ...path])}` });
        }
      }
    }
    let sent = 0;
    await forEachConcurrently(requests, async ({ field, headers, body: request, name }) => {
      const res = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers, body: request });
      const body = (await res.json()) as {
        errors?: { extensions?: { code?: string; details?: { name: string }[] } }[];
        data?: unknown;
      };
      expect([field, res.status, body.errors?.[0]?.extensions?.code]).toEqual([field, 400, 'BAD_USER_INPUT']);
      expect(body.errors?.[0]?.extensions?.details).toEqual([{ name, reason: expect.stringContaining('control characters') }]);
      expect(body.data).toBeUndefined();
      sent++;
    });
    expect(sent).toBeGreaterThan(50);
    expect(await rowCounts()).toEqual(before);
  }, 120_000);

  test('a control character written in the document as an escape is refused naming the argument', async () => {
    const res = await merchant.graphql('{ payment(reference: "ab\\u0000cdefgh") { reference } }');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toEqual(
      expect.objectContaining({
        code: 'BAD_USER_INPUT',
        details: [{ name: 'reference', reason: expect.stringContaining('control characters') }],
      }),
    );
    // Tab, CR and LF are text.
    const text = await merchant.graphql('query($r: String!) { payment(reference: $r) { reference } }', { r: 'a\tb\r\nc' });
    expect(text.body.errors?.[0]?.extensions?.code).not.toBe('BAD_USER_INPUT');
  });

  test('over graphql-ws, a subscription whose variable carries one is refused with the same error', async () => {
    const client = createClient({
      url: graphqlWsUrl(t.baseUrl),
      webSocketImpl: WebSocket,
      connectionParams: await connectionParamsOf(merchant),
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe(
          {
            query: 'subscription($r: String) { checkoutSessionEvents(reference: $r) { __typename } }',
            variables: { r: 'ab\u0000c' },
          },
          { next: () => resolve('a result'), error: resolve, complete: () => resolve('completed') },
        );
      });
      expect(errors).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({
            code: 'BAD_USER_INPUT',
            details: [{ name: '$r', reason: expect.stringContaining('control') }],
          }),
        }),
      ]);
    } finally {
      await client.dispose();
    }
  });
});
