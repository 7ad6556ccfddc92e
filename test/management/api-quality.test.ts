import { jest } from '@jest/globals';
import pg from 'pg';
import { apiQualityCounter, flushApiQuality } from '../../src/management/api-quality.counter.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { onPostgres } from '../support/test-database.js';
import { MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { startTestApp } from '../support/test-app.js';
import { mgmt } from './management-support.js';

// Several helpers share the machine's two cores: a request can take seconds.
jest.setTimeout(30_000);
const t = useTestApp({ runJobs: false });

type Item = Record<string, number | string>;
const itemFor = (items: Item[], endpoint: string) => items.find((i) => i.endpoint === endpoint);

test('per endpoint template and status, counted on every interface, flushed as totals per day', async () => {
  const reference = await t.otherMerchant.authorizedPayment(1_000);
  await t.otherMerchant.getPayment(reference);
  await t.otherMerchant.getPayment('no-such-reference-1');
  // Without credentials: anyone can name a unit, so it counts against none (issue 20).
  await t.otherMerchant.raw('GET', `/epayment/v1/payments/${reference}`, undefined, { 'Merchant-Serial-Number': '654321' });
  await mgmt(t.otherMerchant, 'GET', '/sales-units/654321');

  const before = (await mgmt(t.otherMerchant, 'GET', '/api-quality/sales-units/654321')).body.ApiQualityItems as Item[];
  expect(itemFor(before, 'GET /epayment/v1/payments/{reference}')).toEqual({
    endpoint: 'GET /epayment/v1/payments/{reference}',
    'total Requests': 2,
    successRate: 50,
    status200: 1,
    status400: 0,
    status401: 0,
    status403: 0,
    status404: 1,
    status429: 0,
    status500: 0,
  });
  expect(itemFor(before, 'POST /epayment/v1/payments')).toEqual(expect.objectContaining({ 'total Requests': 1, successRate: 100 }));
  expect(itemFor(before, 'GET /management/v1/sales-units/{msn}')).toEqual(expect.objectContaining({ status200: 1 }));

  // Flushed: the stored totals say the same, and new requests add to them.
  await flushApiQuality(t.app.app.services);
  const [stored] = await forkEm(t.app.app.services.orm).execute<{ n: string | number }[]>(
    `select sum(count) as n from api_quality_count where msn = '654321' and endpoint = 'GET /epayment/v1/payments/{reference}'`,
  );
  expect(Number(stored!.n)).toBe(2);
  await t.otherMerchant.getPayment(reference);
  const after = (await mgmt(t.otherMerchant, 'GET', '/api-quality/sales-units/654321')).body.ApiQualityItems as Item[];
  expect(itemFor(after, 'GET /epayment/v1/payments/{reference}')).toEqual(
    expect.objectContaining({ 'total Requests': 3, status200: 2, successRate: 66 }),
  );
});

test('only for a unit the caller sees: another merchant’s is 404, the partner’s connected one is readable', async () => {
  expect((await mgmt(t.merchant, 'GET', '/api-quality/sales-units/654321')).status).toBe(404);
  expect((await mgmt(t.partner.forSalesUnit('654321'), 'GET', '/api-quality/sales-units/654321')).status).toBe(200);
  expect((await mgmt(t.partner.forSalesUnit('123456'), 'GET', '/api-quality/sales-units/112233')).status).toBe(404);
});

test('an instance that runs no jobs flushes its counts every flush interval, while it keeps running', async () => {
  const app = await startTestApp({ runJobs: false, flushIntervalMs: 50 });
  const storedTotal = async () => {
    const [row] = await forkEm(app.app.services.orm).execute<{ n: string | number | null }[]>(
      `select sum(count) as n from api_quality_count where msn = '654321' and endpoint = 'GET /epayment/v1/payments/{reference}'`,
    );
    return Number(row?.n ?? 0);
  };
  try {
    const client = new MerchantClient(app.baseUrl, MERCHANT_B);
    for (let i = 0; i < 3; i++) expect((await client.getPayment(`unflushed-reference-${i}`)).status).toBe(404);
    // Polled with a deadline: the counts reach the database on the instance's own timer, not at its stop.
    const deadline = Date.now() + 20_000;
    while ((await storedTotal()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await storedTotal()).toBe(3);
    // Nothing of it is left only in memory, and the read counts each request once.
    expect(
      apiQualityCounter(app.app.services)
        .pendingFor('654321')
        .filter((p) => p.endpoint.includes('{reference}')),
    ).toEqual([]);
    const items = (await mgmt(client, 'GET', '/api-quality/sales-units/654321')).body.ApiQualityItems as Item[];
    expect(itemFor(items, 'GET /epayment/v1/payments/{reference}')).toEqual(
      expect.objectContaining({ 'total Requests': 3, status404: 3, successRate: 0 }),
    );
  } finally {
    await app.close();
  }
}, 120_000);

test('a graceful stop flushes what is still counted in memory before the database closes', async () => {
  // No flush on the timer within the test: what is flushed, the stop flushes.
  const app = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
  const flushes = () => app.queries.filter((sql) => /insert into api_quality_count/.test(sql));
  try {
    const client = new MerchantClient(app.baseUrl, MERCHANT_B);
    await client.getPayment('closing-reference-1');
    await client.getPayment('closing-reference-2');
    expect(flushes()).toEqual([]);
  } finally {
    await app.close();
  }
  // The close ran the flush, one statement for both requests, while the database was still open.
  expect(flushes()).toHaveLength(1);
}, 120_000);

// A flush held up inside its insert: PGlite's one connection runs statements one at a time, so only a server can
// hold the table while the service reads it.
(onPostgres ? test : test.skip)(
  'a read while a flush is writing counts each request once: the batch is neither lost between memory and table, nor counted twice',
  async () => {
    const app = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
    const holder = new pg.Client({ connectionString: app.app.services.config.databaseUrl });
    await holder.connect();
    try {
      const client = new MerchantClient(app.baseUrl, MERCHANT_B);
      expect((await client.getPayment('flush-race-reference')).status).toBe(404);
      const pending = () => apiQualityCounter(app.app.services).pendingFor('654321');
      // Counted as its answer is sent, which the client may see first.
      while (pending().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      // Writes to the table wait for this lock; reads of it do not.
      await holder.query('begin');
      await holder.query('lock table api_quality_count in exclusive mode');
      const flushed = flushApiQuality(app.app.services);
      // The flush has taken its batch out of memory and waits on its insert.
      while (pending().length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const read = mgmt(client, 'GET', '/api-quality/sales-units/654321');
      setTimeout(() => void holder.query('commit'), 500);
      const items = (await read).body.ApiQualityItems as Item[];
      await flushed;
      expect(itemFor(items, 'GET /epayment/v1/payments/{reference}')).toEqual(
        expect.objectContaining({ 'total Requests': 1, status404: 1 }),
      );
    } finally {
      await holder.end();
      await app.close();
    }
  },
  120_000,
);
