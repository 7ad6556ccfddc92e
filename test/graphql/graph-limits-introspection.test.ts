import { defaultQueryLimits } from '../../src/config.js';
import { generate } from '@graphql-codegen/cli';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import { getIntrospectionQuery } from 'graphql';
import { MerchantClient } from '../support/merchant-client.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The standard introspection query of graphql-js, which graphql-codegen, GraphiQL, Postman and Apollo's tools send,
 * is 15 levels deep: where introspection is allowed it is bounded by the schema, not refused by the depth limit.
 */

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

test('the standard introspection query passes the limits in the test environment', async () => {
  const res = await merchant.graphql(getIntrospectionQuery());
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const types = (res.body.data.__schema.types as { name: string }[]).map((type) => type.name);
  expect(types).toEqual(expect.arrayContaining(['Payment', 'PaymentEvent', 'Query', 'Mutation']));
});

test('the limits still measure what an introspecting operation asks besides introspection', async () => {
  const app = await startTestApp({ graphqlLimits: { ...defaultQueryLimits, maxDepth: 5, maxAliases: 30, maxCost: 50_000 } });
  try {
    const client = new MerchantClient(app.baseUrl);
    const beside = (selection: string) => client.graphql(`{ __schema { types { fields { type { ofType { name } } } } } ${selection} }`);
    expect((await beside('payments(first: 1) { edges { node { amount { value } } } }')).body.errors).toBeUndefined();
    const tooDeep = await beside('payments(first: 1) { edges { node { aggregate { capturedAmount { value } } } } }');
    expect(tooDeep.body.errors).toEqual([expect.objectContaining({ message: 'Query depth 6 exceeds the limit of 5' })]);
  } finally {
    await app.close();
  }
});

test('graphql-codegen generates types from the running service', async () => {
  const [output] = await generate(
    {
      schema: { [`${t.baseUrl}/graphql`]: { headers: await merchant.headers() } },
      generates: { 'generated.ts': { plugins: ['typescript'] } },
      silent: true,
      // The plugin handed over as a module: codegen's own loader uses require, which cannot load its ESM dependencies under jest.
      pluginLoader: () => typescriptPlugin,
    },
    false,
  );
  expect(output?.content).toMatch(/export type Payment = /);
  expect(output?.content).toMatch(/export type CreatePaymentInput = \{/);
});

test('production still refuses introspection', async () => {
  const prod = await startProductionApp();
  try {
    const res = await new MerchantClient(prod.baseUrl).graphql(getIntrospectionQuery());
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect((res.body.errors as { message: string }[]).some((e) => /introspection has been disabled/.test(e.message))).toBe(true);
  } finally {
    await prod.close();
  }
});
