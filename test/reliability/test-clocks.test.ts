import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckoutClient, newSessionReference } from '../checkout/support/checkout-client.js';
import { MerchantEndpoints } from '../checkout/support/merchant-endpoints.js';
import { MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { approveWithConsent } from '../support/user-consent.js';
import { eventually } from '../support/subscriber.js';
import { createTestDatabase, onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Test clocks belong to their sales unit (issue 20 point 7): what one unit's advance moves, and what it leaves. */
const ADVANCE = `mutation($input: AdvanceTestClockInput!) {
  advanceTestClock(input: $input) { testClock { merchantSerialNumber now } userErrors { code } }
}`;

async function advance(client: MerchantClient, seconds: number): Promise<string> {
  const res = await client.graphql(ADVANCE, { input: { seconds } });
  expect(res.body.data.advanceTestClock.userErrors).toEqual([]);
  return res.body.data.advanceTestClock.testClock.now;
}
async function unitNow(client: MerchantClient): Promise<number> {
  const res = await client.graphql('{ testClock { now } }');
  expect(res.body.errors).toBeUndefined();
  return Date.parse(res.body.data.testClock.now);
}
async function ledgerPayouts(client: MerchantClient): Promise<number> {
  const token = await client.accessToken();
  const ledgers = await client.raw('GET', '/settlement/v1/ledgers', undefined, { Authorization: `Bearer ${token}` });
  expect(ledgers.status).toBe(200);
  let payouts = 0;
  for (const { ledgerId } of ledgers.body.items as { ledgerId: string }[]) {
    const rows = await client.raw('GET', `/report/v1/ledgertransactions?ledgerId=${ledgerId}`, undefined, {
      Authorization: `Bearer ${token}`,
    });
    payouts += (rows.body.items as { transactionType: string }[]).filter((r) => r.transactionType === 'payout').length;
  }
  return payouts;
}

describe('one unit advances', () => {
  let t: TestApp;
  let endpoints: MerchantEndpoints;
  beforeAll(async () => {
    t = await startTestApp();
    endpoints = await new MerchantEndpoints().start();
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await endpoints.stop();
  });

  test("A's advance expires A's open payment and checkout session (with its callback) and pays out A's ledger; B's stay", async () => {
    const a = new MerchantClient(t.baseUrl);
    const b = new MerchantClient(t.baseUrl, MERCHANT_B);
    const aOpen = (await a.createPayment()).body.reference as string;
    const bOpen = (await b.createPayment()).body.reference as string;
    const aCaptured = await a.authorizedPayment(10_000);
    expect((await a.modify(aCaptured, 'capture', 10_000)).status).toBe(200);
    const bCaptured = await b.authorizedPayment(10_000);
    expect((await b.modify(bCaptured, 'capture', 10_000)).status).toBe(200);
    const callbackUrl = endpoints.on('/cb-clock', () => ({ status: 200 }));
    const session = newSessionReference();
    const checkout = new CheckoutClient(t.baseUrl);
    expect(
      (
        await checkout.createSession({
          merchantInfo: { callbackUrl },
          transaction: { reference: session },
          logistics: null,
          configuration: { elements: 'PaymentOnly' },
        })
      ).status,
    ).toBe(200);
    const bPayoutsBefore = await ledgerPayouts(b);
    expect(await ledgerPayouts(a)).toBe(0);

    await advance(a, 2 * 86_400);

    expect((await a.getPayment(aOpen)).body.state).toBe('EXPIRED');
    expect((await checkout.getSession(session)).body.sessionState).toBe('SessionExpired');
    // The callback was recorded at A's time, two days ahead of the service's: it is due at once all the same.
    await eventually(() => endpoints.at('/cb-clock').length === 1, 'the expiry callback');
    expect(await ledgerPayouts(a)).toBe(1);
    // B: its open payment and its ledger as they were.
    expect((await b.getPayment(bOpen)).body.state).toBe('CREATED');
    expect(await ledgerPayouts(b)).toBe(bPayoutsBefore);
    expect((await unitNow(a)) - (await unitNow(b))).toBe(2 * 86_400_000);
  });

  test("a wallet user's token issued after the unit's advance is valid: tokens live in real time, the consent in the unit's", async () => {
    const a = new MerchantClient(t.baseUrl);
    const approval = await approveWithConsent(a, 'name');
    expect(approval.userToken).toBeDefined();
    const res = await a.raw('GET', '/vipps-userinfo-api/userinfo/', undefined, {
      Authorization: `Bearer ${approval.userToken}`,
      'Ocp-Apim-Subscription-Key': 'test-key-123456',
    });
    expect(res.status).toBe(200);
    expect(res.body.sub).toBe(approval.sub);
  });

  test("a unit whose clock never moved is on the service's clock", async () => {
    const a = new MerchantClient(t.baseUrl);
    const b = new MerchantClient(t.baseUrl, MERCHANT_B);
    expect(await unitNow(b)).toBe(t.clock.now().getTime());
    expect(await unitNow(a)).toBeGreaterThan(t.clock.now().getTime());
  });
});

/** Every row of the merchant's ledger, as the report lists them: type, amount and ledger date. */
async function ledgerRows(client: MerchantClient): Promise<{ transactionType: string; ledgerAmount: number; ledgerDate: string }[]> {
  const token = await client.accessToken();
  const ledgers = await client.raw('GET', '/settlement/v1/ledgers', undefined, { Authorization: `Bearer ${token}` });
  const rows = await client.raw('GET', `/report/v1/ledgertransactions?ledgerId=${ledgers.body.items[0].ledgerId}`, undefined, {
    Authorization: `Bearer ${token}`,
  });
  expect(rows.status).toBe(200);
  return (rows.body.items as { transactionType: string; ledgerAmount: number; ledgerDate: string }[]).map(
    ({ transactionType, ledgerAmount, ledgerDate }) => ({ transactionType, ledgerAmount, ledgerDate }),
  );
}

// issue 33 N6: a unit's advance stops only where a job has work for it, and one unit's advance holds back no other's.
describe('a year at once', () => {
  /** The same payments on a fresh app: two captures, one refunded whole (its deduction two business days on), one open. */
  async function paymentsOf(t: TestApp): Promise<{ client: MerchantClient; open: string }> {
    const client = new MerchantClient(t.baseUrl);
    const kept = await client.authorizedPayment(10_000);
    expect((await client.modify(kept, 'capture', 10_000)).status).toBe(200);
    const refunded = await client.authorizedPayment(20_000);
    expect((await client.modify(refunded, 'capture', 20_000)).status).toBe(200);
    expect((await client.modify(refunded, 'refund', 20_000)).status).toBe(200);
    const open = (await client.createPayment()).body.reference as string;
    return { client, open };
  }

  test('366 days in one advance leave the ledger, its payouts and the expiries as 366 advances of a day would', async () => {
    const atOnce = await startTestApp();
    const dayByDay = await startTestApp();
    try {
      // One service time for both, so their ledger dates are the same dates.
      atOnce.clock.advance(dayByDay.clock.now().getTime() - atOnce.clock.now().getTime());
      const one = await paymentsOf(atOnce);
      const other = await paymentsOf(dayByDay);

      await advance(one.client, 366 * 86_400);
      // A day at a time over the refund's deduction and the weekend, then the rest of the year in one advance.
      for (let day = 0; day < 7; day++) await advance(other.client, 86_400);
      await advance(other.client, 359 * 86_400);

      const rows = await ledgerRows(new MerchantClient(atOnce.baseUrl));
      expect(rows.filter((r) => r.transactionType === 'payout').length).toBeGreaterThan(0);
      expect(rows).toEqual(await ledgerRows(new MerchantClient(dayByDay.baseUrl)));
      expect((await new MerchantClient(atOnce.baseUrl).getPayment(one.open)).body.state).toBe('EXPIRED');
      expect((await new MerchantClient(dayByDay.baseUrl).getPayment(other.open)).body.state).toBe('EXPIRED');
      expect(await unitNow(new MerchantClient(atOnce.baseUrl))).toBe(atOnce.clock.now().getTime() + 366 * 86_400_000);
    } finally {
      await atOnce.close();
      await dayByDay.close();
    }
  }, 240_000);

  test("a unit's 60-second advance completes while another unit's 366 days are under way", async () => {
    const t = await startTestApp();
    const { services } = t.app;
    const runJobs = services.runJobsNow!;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    // B's advance is held in its first run of the jobs, as a long advance would be, until the test lets it go.
    services.runJobsNow = async () => {
      if (!held) {
        held = true;
        await released;
      }
      await runJobs();
    };
    try {
      const completed: string[] = [];
      const longAdvance = advance(new MerchantClient(t.baseUrl, MERCHANT_B), 366 * 86_400).then(() => completed.push('B'));
      await eventually(() => held, "B's advance under way");
      // Chained behind B's (one chain per instance, as before), A's would wait as long as B's is held.
      void advance(new MerchantClient(t.baseUrl), 60).then(() => completed.push('A'));
      await eventually(() => completed.includes('A'), "A's advance while B's is under way");
      release();
      await longAdvance;
      expect(completed).toEqual(['A', 'B']);
      expect((await unitNow(new MerchantClient(t.baseUrl, MERCHANT_B))) - t.clock.now().getTime()).toBe(366 * 86_400_000);
      expect((await unitNow(new MerchantClient(t.baseUrl))) - t.clock.now().getTime()).toBe(60_000);
    } finally {
      release();
      services.runJobsNow = runJobs;
      await t.close();
    }
  }, 240_000);
});

/** Two apps on one database, one after the other: PostgreSQL (a fresh database), or PGlite on a directory. */
async function sharedDatabase(): Promise<{ overrides: { databaseUrl?: string; dataDir?: string }; drop(): Promise<void> }> {
  if (onPostgres) {
    const database = await createTestDatabase({ migrated: true });
    return { overrides: { databaseUrl: database.databaseUrl }, drop: () => database.drop() };
  }
  const dir = await mkdtemp(join(tmpdir(), 'paygraph-clock-'));
  return { overrides: { dataDir: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
}

test('a restart (a new app on the same database) keeps each unit its own time', async () => {
  const database = await sharedDatabase();
  try {
    const first = await startTestApp(database.overrides);
    try {
      await advance(new MerchantClient(first.baseUrl), 3 * 86_400);
    } finally {
      await first.close();
    }
    const second = await startTestApp(database.overrides);
    try {
      const a = await unitNow(new MerchantClient(second.baseUrl));
      const b = await unitNow(new MerchantClient(second.baseUrl, MERCHANT_B));
      expect(b).toBe(second.clock.now().getTime());
      expect(a - b).toBe(3 * 86_400_000);
    } finally {
      await second.close();
    }
  } finally {
    await database.drop();
  }
}, 120_000);

// Two instances at once: only a server database can be shared.
(onPostgres ? test : test.skip)(
  "two instances agree on a unit's time: an advance on one is the time on the other",
  async () => {
    const database = await createTestDatabase({ migrated: true });
    try {
      const one = await startTestApp({ databaseUrl: database.databaseUrl });
      const two = await startTestApp({ databaseUrl: database.databaseUrl });
      try {
        // The two apps' service clocks were read at their starts: compare each unit's time to its own app's.
        await advance(new MerchantClient(one.baseUrl), 86_400);
        const onTwo = new MerchantClient(two.baseUrl);
        // The other instance reads the units' clocks before each run of its jobs.
        await eventually(
          async () => (await unitNow(onTwo)) - two.clock.now().getTime() === 86_400_000,
          "the other instance seeing the unit's clock",
        );
        const open = (await onTwo.createPayment()).body.reference as string;
        // Expiry on the second instance goes by the unit's time there too.
        await advance(onTwo, 11 * 60);
        expect((await new MerchantClient(one.baseUrl).getPayment(open)).body.state).toBe('EXPIRED');
      } finally {
        await one.close();
        await two.close();
      }
    } finally {
      await database.drop();
    }
  },
  120_000,
);
