import { randomUUID } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import { CAPTURE, CREATE, GET, ORDERS_PAGE, PAGE, fragmentFanOutDocument, repeatedSelectionDocument } from '../../bench/graph-documents.js';
import { graphqlSucceeded } from '../../bench/load.js';
import { paymentBody } from '../../bench/payment-body.js';
import type { GraphQLContext } from '../../src/platform/graph/graphql-context.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every query and mutation over HTTP runs through Apollo Server's own request pipeline (issue 32): a plugin of the
 * kind anyone could add counts what Apollo Server resolves and answers, and over the bench's whole document mix,
 * sent as the bench sends it, it sees every request, answered or refused.
 */
interface Seen {
  source: string | undefined;
  operation: string | undefined;
  status: number | undefined;
}

const seen: Seen[] = [];
const counting: ApolloServerPlugin<GraphQLContext> = {
  requestDidStart: async () => {
    const entry: Seen = { source: undefined, operation: undefined, status: undefined };
    seen.push(entry);
    return {
      didResolveOperation: async ({ source, operation }) => {
        entry.source = source;
        entry.operation = operation?.operation;
      },
      willSendResponse: async ({ response }) => {
        entry.status = response.http.status ?? 200;
      },
    };
  },
};

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ jobIntervalMs: 3_600_000 }, {}, { graphPlugins: [counting] });
  merchant = new MerchantClient(t.baseUrl);
}, 60_000);
afterAll(() => t.close());

test("Apollo Server's plugins see every query and mutation of the bench, and the hostile documents it refuses", async () => {
  const captured = await merchant.authorizedPayment(65_000_000);
  const mix: { query: string; variables: Record<string, unknown>; operation: string; answered: 200 | 400 }[] = [
    {
      query: CREATE,
      variables: { input: { ...paymentBody(`bench-${randomUUID()}`.slice(0, 50)), paymentMethod: 'WALLET', idempotencyKey: randomUUID() } },
      operation: 'mutation',
      answered: 200,
    },
    {
      query: CAPTURE,
      variables: { input: { reference: captured, amount: { currency: 'NOK', value: 1 }, idempotencyKey: randomUUID() } },
      operation: 'mutation',
      answered: 200,
    },
    { query: GET, variables: { r: captured }, operation: 'query', answered: 200 },
    { query: PAGE, variables: {}, operation: 'query', answered: 200 },
    { query: ORDERS_PAGE, variables: {}, operation: 'query', answered: 200 },
    { query: fragmentFanOutDocument(), variables: {}, operation: 'query', answered: 400 },
    { query: repeatedSelectionDocument(), variables: {}, operation: 'query', answered: 400 },
  ];
  seen.length = 0;
  const answers = [];
  for (const { query, variables } of mix) answers.push(await merchant.graphql(query, variables));

  expect(answers.map((res) => [res.status, res.status === 200 && graphqlSucceeded(res.text)])).toEqual(
    mix.map((m) => [m.answered, m.answered === 200]),
  );
  expect(seen).toEqual(mix.map((m) => ({ source: m.query, operation: m.operation, status: m.answered })));
});
