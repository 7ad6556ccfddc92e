import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { newReference } from '../support/merchant-client.js';

/*
 * issue 23: a modification is one statement transaction (statement-transaction.ts): its BEGIN sent with the gate's
 * statement, its COMMIT with the writes'. A refusal that is not recorded ends it with a ROLLBACK instead, and the
 * connection goes back to the pool with no transaction open: more refusals than the pool has connections, then
 * captures that must all see and change the payment as if nothing had come before.
 */
const t = useTestApp({ runJobs: false });

/** More than the request pool's 20 connections (orm.ts), so every pooled connection serves a refusal. */
const REFUSALS = 30;

test('refusals that are not recorded leave no transaction open, and later modifications of the payment are whole', async () => {
  const { merchant } = t;
  const { services } = t.app.app;
  const reference = await merchant.authorizedPayment(10_000);
  const refused = await Promise.all(
    Array.from({ length: REFUSALS }, (_, i) =>
      i % 2 === 0 ? merchant.modify(newReference('missing'), 'capture', 100) : merchant.modify(reference, 'capture', 100, undefined, 'DKK'),
    ),
  );
  expect(refused.map((r) => r.status)).toEqual(Array.from({ length: REFUSALS }, (_, i) => (i % 2 === 0 ? 404 : 400)));
  if (services.config.databaseUrl) {
    const open = await forkEm(services.orm).execute<{ open: string }[]>(
      `select count(*) as open from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
    );
    expect(Number(open[0]!.open)).toBe(0);
  }
  // Each capture sees the ones before it: none ran inside a transaction left open by a refusal.
  const captured = await Promise.all(Array.from({ length: REFUSALS }, () => merchant.modify(reference, 'capture', 100)));
  expect(captured.map((r) => r.status)).toEqual(Array(REFUSALS).fill(200));
  const payment = await merchant.getPayment(reference);
  expect(payment.body.aggregate.capturedAmount.value).toBe(REFUSALS * 100);
  const events = (await merchant.events(reference)).body as { name: string }[];
  expect(events.filter((e) => e.name === 'CAPTURED')).toHaveLength(REFUSALS);
});
