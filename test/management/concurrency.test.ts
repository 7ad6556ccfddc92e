import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { onPostgres } from '../support/test-database.js';
import { mgmt, orderBody } from './management-support.js';

// Row-lock races only exist on a PostgreSQL server; PGlite runs one transaction at a time.
const describeOnPostgres = onPostgres ? describe : describe.skip;

// Several helpers share the machine's two cores: a request can take seconds.
jest.setTimeout(30_000);
const t = useTestApp({ runJobs: false });

async function submit(prefillUrl: string): Promise<number> {
  const token = new URL(prefillUrl).searchParams.get('token')!;
  const res = await fetch(`${t.baseUrl}/merchant-portal/prefill/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  await res.text();
  return res.status;
}

describeOnPostgres('product orders under concurrency', () => {
  test('the same order submitted ten times at once creates one sales unit', async () => {
    const { body } = await mgmt(t.partner, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': randomUUID() });
    const statuses = await Promise.all(Array.from({ length: 10 }, () => submit(body.prefillUrl)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(9);
    const [row] = await forkEm(t.app.app.services.orm).execute<{ n: string | number }[]>(
      `select count(*) as n from product_order where id = ? and msn is not null`,
      [body.prefilledOrderId],
    );
    expect(Number(row!.n)).toBe(1);
  });

  test('undo racing the submission: exactly one wins, and the other is refused', async () => {
    const { body } = await mgmt(t.partner, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': randomUUID() });
    const [submitted, undone] = await Promise.all([
      submit(body.prefillUrl),
      mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`).then((r) => r.status),
    ]);
    expect([
      [200, 409],
      [404, 200],
    ]).toContainEqual([submitted, undone]);
  });

  test('the same Idempotency-Key sent five times at once makes one order', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => mgmt(t.partner, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': key })),
    );
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.prefilledOrderId));
    expect(ids.size).toBe(1);
    for (const a of answers) expect([201, 409]).toContain(a.status);
  });
});
