import pg from 'pg';
import { CheckoutClient, newSessionReference } from '../checkout/support/checkout-client.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { onPostgres } from '../support/test-database.js';

/**
 * Issue 33, point 12: a request whose database connection is lost mid-request (the server ends its backend, as
 * `pg_terminate_backend`, a restart or a failover do) is answered 503 with `Retry-After` in its interface's error
 * shape, and on the graph with SERVICE_UNAVAILABLE, never 500; the next request is served. PostgreSQL only: the
 * embedded database has no connection to lose.
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('a database connection lost mid-request', () => {
  let app: TestApp;
  let admin: pg.Client;
  const t = {
    get app() {
      return app;
    },
    get baseUrl() {
      return app.baseUrl;
    },
    merchant: undefined as unknown as MerchantClient,
  };

  beforeAll(async () => {
    app = await startTestApp();
    t.merchant = new MerchantClient(app.baseUrl);
    admin = new pg.Client({ connectionString: app.app.services.config.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await app?.close();
  });

  /**
   * Sends a request while `table` is locked, so its query waits on the lock, and ends every backend that waits on it
   * (the request's, and any job's that came by) until the request is answered. The lock is held on a connection of
   * its own: PostgreSQL keeps one snapshot of pg_stat_activity for a whole transaction, so a search run inside the
   * locking transaction would never see the request's backend arrive after the first look.
   */
  async function whileBackendsEnded(table: string, send: () => Promise<Response>): Promise<Response> {
    const locker = new pg.Client({ connectionString: app.app.services.config.databaseUrl });
    await locker.connect();
    const lockerPid = Number((await locker.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
    await locker.query('begin');
    await locker.query(`lock table ${table} in access exclusive mode`);
    let answered = false;
    const pending = send().finally(() => (answered = true));
    const deadline = Date.now() + 20_000;
    try {
      while (!answered && Date.now() < deadline) {
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = current_database() and pid not in (pg_backend_pid(), $1) and wait_event_type = 'Lock'`,
          [lockerPid],
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    return pending;
  }

  test('ePayment: 503 in its problem body with Retry-After; the next request is served', async () => {
    const reference = await t.merchant.authorizedPayment(1_000);
    const headers = { ...(await t.merchant.headers()), 'Merchant-Serial-Number': MERCHANT_A.msn };
    const url = `${t.baseUrl}/epayment/v1/payments/${reference}`;
    const res = await whileBackendsEnded('payment', () => fetch(url, { headers }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toEqual(expect.objectContaining({ status: 503, title: 'Service Unavailable', traceId: expect.any(String) }));
    expect((await fetch(url, { headers })).status).toBe(200);
  });

  test('the report API: 503 in its {errorCode, errorMessage, contextId} body with Retry-After', async () => {
    const headers = { Authorization: `Bearer ${await t.merchant.accessToken()}` };
    const url = `${t.baseUrl}/settlement/v1/ledgers`;
    const res = await whileBackendsEnded('ledger', () => fetch(url, { headers }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ errorCode: 10001, errorMessage: expect.stringMatching(/retry/), contextId: expect.any(String) });
    expect((await fetch(url, { headers })).status).toBe(200);
  });

  test('checkout: 503 in the checkout problem body with Retry-After', async () => {
    const checkout = new CheckoutClient(t.baseUrl);
    const reference = newSessionReference();
    expect((await checkout.createSession({ transaction: { reference } })).status).toBe(200);
    const url = `${t.baseUrl}/checkout/v3/session/${encodeURIComponent(reference)}`;
    const res = await whileBackendsEnded('checkout_session', () => fetch(url, { headers: checkout.headers() }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual(expect.objectContaining({ status: 503, errorCode: expect.any(String) }));
    expect((await checkout.getSession(reference)).status).toBe(200);
  });

  test('the graph: a SERVICE_UNAVAILABLE error with retryAfterSeconds, no INTERNAL_SERVER_ERROR', async () => {
    const reference = await t.merchant.authorizedPayment(1_000);
    const query = `{ payment(reference: "${reference}") { state } }`;
    const res = await whileBackendsEnded('payment', async () => {
      const headers = { ...(await t.merchant.headers()), 'Merchant-Serial-Number': MERCHANT_A.msn };
      return fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
    });
    const body = (await res.json()) as { errors?: { extensions: Record<string, unknown> }[] };
    expect(body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 }) }),
    ]);
    expect((await t.merchant.graphql(query)).body).toEqual({ data: { payment: { state: 'AUTHORIZED' } } });
  });

  /**
   * Every backend of the app ended, again and again, while payments are created and approved and the jobs run: a
   * transaction whose BEGIN, COMMIT or ROLLBACK met the lost connection kept its pool connection for good (Kysely
   * releases none then), so the pool shrank and closing the app waited forever. Each request is answered 2xx or 503,
   * and the app then closes, its pools empty.
   */
  test('connections ended inside transactions go back to the pool: every answer is 2xx or 503, and the app closes', async () => {
    const burst = await startTestApp();
    const merchant = new MerchantClient(burst.baseUrl);
    await merchant.accessToken();
    const killer = new pg.Client({ connectionString: burst.app.services.config.databaseUrl });
    await killer.connect();
    const statuses = new Set<number>();
    try {
      for (let round = 0; round < 4; round++) {
        const payments = Array.from({ length: 8 }, async () => {
          const reference = newReference();
          const created = await merchant.createPayment({ amount: { currency: 'NOK', value: 1_000 }, reference });
          statuses.add(created.status);
          if (created.status === 201) statuses.add((await merchant.forceApprove(reference)).status);
        });
        for (let kill = 0; kill < 5; kill++) {
          await killer.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
          );
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await Promise.all(payments);
      }
    } finally {
      await killer.end();
      await burst.close();
    }
    expect([...statuses].filter((status) => status !== 503 && (status < 200 || status > 299))).toEqual([]);
  });
});
