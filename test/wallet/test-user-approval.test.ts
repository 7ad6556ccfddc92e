import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { newReference } from '../support/merchant-client.js';
import { CheckoutClient } from '../checkout/support/checkout-client.js';
import { onPostgres } from '../support/test-database.js';

// issue 19 points 6 and 9: one "a test user approves" behind force approve and every wallet page, so the phone
// numbers the pages take work in force approve, and the rule "force approve needs one approval on a page" is one.
const t = useTestApp();

async function approvalsOf(phoneNumber: string): Promise<number> {
  const [row] = await forkEm(t.app.app.services.orm).execute<{ approved_payments_count: number }[]>(
    'select approved_payments_count from wallet_user where phone_number = ?',
    [phoneNumber],
  );
  return Number(row!.approved_payments_count);
}

async function payOnCheckoutPage(walletPhone: string): Promise<number> {
  const created = await new CheckoutClient(t.baseUrl).createSession({ logistics: null, configuration: { elements: 'PaymentOnly' } });
  const res = await fetch(`${t.baseUrl}/checkout/page/pay?token=${encodeURIComponent(created.body.token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
    body: new URLSearchParams({ walletPhone }).toString(),
  });
  return res.status;
}

test('force approve takes the 8-digit test numbers, with spaces and a plus too, as the pages do', async () => {
  for (const phoneNumber of ['91234567', '+47 912 34 567', '4791234567']) {
    const reference = newReference('eight');
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
    const approved = await t.merchant.forceApprove(reference, { customer: { phoneNumber } });
    expect(approved.status).toBe(200);
    expect((await t.merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');
  }
  const reference = newReference('eight');
  await t.merchant.createPayment({ reference });
  const unknown = await t.merchant.forceApprove(reference, { customer: { phoneNumber: '90000001' } });
  expect(unknown.status).toBe(400);
  expect(unknown.body).toMatchObject({ title: 'Customer not found' });
  const malformed = await t.merchant.forceApprove(reference, { customer: { phoneNumber: '1234567' } });
  expect(malformed.status).toBe(400);
  expect(malformed.body.extraDetails).toEqual([expect.objectContaining({ name: 'customer.phoneNumber' })]);
});

test('a payment made for a customer is approved by that customer only, however the number is written', async () => {
  const reference = newReference('customer');
  expect((await t.merchant.createPayment({ reference, customer: { phoneNumber: '4791234567' } })).status).toBe(201);
  const other = await t.merchant.forceApprove(reference, { customer: { phoneNumber: '98765432' } });
  expect(other.status).toBe(400);
  expect(other.body.detail).toMatch(/another customer/);
  expect((await t.merchant.forceApprove(reference, { customer: { phoneNumber: '91234567' } })).status).toBe(200);
});

test('force approve needs one approval on a wallet page, whichever page: the checkout page counts as the landing page does', async () => {
  // Ola (4798765432) has approved nothing yet.
  expect(await approvalsOf('4798765432')).toBe(0);
  const reference = newReference('ola');
  await t.merchant.createPayment({ reference });
  const refused = await t.merchant.forceApprove(reference, { customer: { phoneNumber: '98765432' } });
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(/landing page/);
  expect(await payOnCheckoutPage('98765432')).toBe(200);
  expect(await approvalsOf('4798765432')).toBe(1);
  expect((await t.merchant.forceApprove(reference, { customer: { phoneNumber: '98765432' } })).status).toBe(200);
  // Force approve is no approval on a page: the count stays.
  expect(await approvalsOf('4798765432')).toBe(1);
});

// Force approve only reads the test user's count of page approvals, so it must not queue on the user's row (every
// flow of a load test approves as one user); a page approval writes the count, so it still waits for the row. Seen in
// pg_stat_activity, not timed: PostgreSQL only (PGlite has one connection, so no transaction can hold a row meanwhile).
(onPostgres ? describe : describe.skip)("a test user's row lock", () => {
  const KARI = '4791234567';

  /** Runs `request` while another transaction holds Kari's row, and tells whether it was seen waiting for the lock. */
  async function whileKarisRowIsHeld(request: () => Promise<number>): Promise<{ status: number; waited: boolean }> {
    const orm = t.app.app.services.orm;
    return forkEm(orm)
      .transactional(async (holder) => {
        await holder.execute('select 1 from wallet_user where phone_number = ? for update', [KARI]);
        let status: number | undefined;
        const sent = request().then((s) => (status = s));
        let waited = false;
        while (status === undefined && !waited) {
          const waiters = await forkEm(orm).execute(
            `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%wallet_user%'`,
          );
          waited = waiters.length > 0;
        }
        return { waited, settle: sent };
      })
      .then(async ({ waited, settle }) => ({ status: await settle, waited }));
  }

  async function landingApproval(): Promise<number> {
    const reference = newReference('held');
    const created = await t.merchant.createPayment({ reference });
    const token = new URL(created.body.redirectUrl as string).searchParams.get('token')!;
    const res = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ phoneNumber: KARI, action: 'approve' }).toString(),
    });
    return res.status;
  }

  test('force approve does not wait for it', async () => {
    const reference = newReference('held');
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
    const approved = await whileKarisRowIsHeld(async () => (await t.merchant.forceApprove(reference)).status);
    expect(approved).toEqual({ status: 200, waited: false });
  });

  test('an approval on a page waits for it, and counts once the row is free', async () => {
    const before = await approvalsOf(KARI);
    const approved = await whileKarisRowIsHeld(landingApproval);
    expect(approved).toEqual({ status: 200, waited: true });
    expect(await approvalsOf(KARI)).toBe(before + 1);
  });
});
