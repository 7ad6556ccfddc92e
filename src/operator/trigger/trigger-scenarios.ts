import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  expectStatus,
  merchantPrincipal,
  pspPrincipal,
  TriggerFailure,
  type Principal,
  type TestEnvironmentClient,
} from './test-environment-client.js';
import { APPROVAL_FAILURES } from '../../payments/test-failure-triggers.js';

/** One event a scenario caused, as the graph tells it. */
export interface TriggeredEvent {
  eventId: string;
  name: string;
  occurredAt: string;
}

/** What a scenario prints: the unit it ran in, the reference it made, and the events it caused, oldest first. */
export interface TriggerResult {
  scenario: string;
  msn: string;
  reference: string;
  events: TriggeredEvent[];
}

export interface Scenario {
  name: string;
  /** What it does, for `trigger --list`. */
  summary: string;
  /** The unit it runs in without `--msn`. */
  defaultMsn: string;
  /** The events it causes in that unit, in order: what `--list` promises and the test checks. */
  events: readonly string[];
  run(client: TestEnvironmentClient, msn: string): Promise<TriggerResult>;
}

/** Kari Nordmann (TEST-ENVIRONMENT.md): has approved before, so force approve works for her from the start. */
const TEST_USER_PHONE = '4791234567';
const MERCHANT_A_MSN = '123456';
const PSP_MSN = '112233';
const AMOUNT = 10_000;
/** A payment lives 10 minutes unless it says otherwise; the expired scenario moves its unit's clock past that. */
const PAYMENT_LIFETIME_S = 10 * 60;

const payment = (name: string) => `epayments.payment.${name}.v1`;
const newReference = (scenario: string) => `trigger-${scenario}-${randomUUID().slice(0, 8)}`;

const STREAM_EVENTS = `query TriggerEvents($first: Int!, $after: String) {
  events(first: $first, after: $after) { edges { node { eventId name reference occurredAt payload } } pageInfo { hasNextPage endCursor } }
}`;

interface StreamEventNode {
  eventId: string;
  name: string;
  reference: string | null;
  occurredAt: string;
  payload: string;
}

/** The id of the unit's newest event now: the events a scenario causes come after it. */
async function newestEventId(client: TestEnvironmentClient, principal: Principal): Promise<bigint> {
  const data = await client.graph<{ events: { edges: { node: StreamEventNode }[] } }>(principal, STREAM_EVENTS, { first: 1 });
  return BigInt(data.events.edges[0]?.node.eventId ?? 0);
}

/** The unit's events after `since` that `belongs` claims, oldest first, read from the graph (newest first, a page at a time). */
async function eventsSince(
  client: TestEnvironmentClient,
  principal: Principal,
  since: bigint,
  belongs: (event: StreamEventNode) => boolean,
): Promise<TriggeredEvent[]> {
  const found: TriggeredEvent[] = [];
  let after: string | null = null;
  for (;;) {
    const data: { events: { edges: { node: StreamEventNode }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
      await client.graph(principal, STREAM_EVENTS, { first: 100, after });
    for (const { node } of data.events.edges) {
      if (BigInt(node.eventId) <= since) return found.reverse();
      if (belongs(node)) found.push({ eventId: node.eventId, name: node.name, occurredAt: node.occurredAt });
    }
    if (!data.events.pageInfo.hasNextPage) return found.reverse();
    after = data.events.pageInfo.endCursor;
  }
}

/** Runs the steps of a merchant scenario between two looks at the unit's events, and reports the reference's. */
async function inUnit(
  scenario: string,
  client: TestEnvironmentClient,
  msn: string,
  steps: (principal: Principal) => Promise<{ reference: string; belongs?: (event: StreamEventNode) => boolean }>,
): Promise<TriggerResult> {
  const principal = merchantPrincipal(msn);
  const since = await newestEventId(client, principal);
  const { reference, belongs } = await steps(principal);
  return { scenario, msn, reference, events: await eventsSince(client, principal, since, belongs ?? ((e) => e.reference === reference)) };
}

/** Creates a WEB_REDIRECT payment and approves it on its landing page as the test user would. */
async function authorizedPayment(client: TestEnvironmentClient, principal: Principal, reference: string): Promise<void> {
  const created = await createPayment(client, principal, reference);
  const landing = new URL(created.body.redirectUrl as string);
  const approved = await client.form(`/wallet/landing/approve${landing.search}`, { phoneNumber: TEST_USER_PHONE, consent: 'yes' });
  expectStatus(approved, 200, 'approving on the landing page');
}

function createPayment(client: TestEnvironmentClient, principal: Principal, reference: string, value = AMOUNT) {
  return client
    .rest(
      principal,
      'POST',
      '/epayment/v1/payments',
      {
        amount: { currency: 'NOK', value },
        paymentMethod: { type: 'WALLET' },
        reference,
        userFlow: 'WEB_REDIRECT',
        returnUrl: 'https://merchant.example/return',
        paymentDescription: 'npm run paygraph -- trigger',
      },
      { 'Idempotency-Key': randomUUID() },
    )
    .then((answer) => expectStatus(answer, 201, 'creating the payment'));
}

async function modify(client: TestEnvironmentClient, principal: Principal, reference: string, operation: string, value?: number) {
  const body = value === undefined ? undefined : { modificationAmount: { currency: 'NOK', value } };
  const answer = await client.rest(principal, 'POST', `/epayment/v1/payments/${reference}/${operation}`, body, {
    'Idempotency-Key': randomUUID(),
  });
  expectStatus(answer, 200, `${operation} of ${reference}`);
}

/**
 * A local endpoint for the callbacks a scenario makes the service send (the checkout callback, the PSP's make-payment
 * callback), answering each as its recipient should. The service reaches it when it runs on this machine.
 */
async function withCallbackEndpoint<T>(use: (url: string) => Promise<T>): Promise<T> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: answered all the same
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ paymentInfo: { pspTransactionId: body.pspTransactionId, status: 'OK' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Polls `read` until `done` holds on its value (a bounded wait for the service's own work after an answer). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (const deadline = Date.now() + 20_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new TriggerFailure(`gave up waiting for ${what}`);
  }
}

/** The scenarios of the everyday outcomes. */
const outcomeScenarios: readonly Scenario[] = [
  {
    name: 'payment.authorized',
    summary: `creates a ${AMOUNT / 100} NOK payment and approves it on its landing page as test user ${TEST_USER_PHONE}`,
    defaultMsn: MERCHANT_A_MSN,
    events: [payment('created'), payment('authorized')],
    run: (client, msn) =>
      inUnit('payment.authorized', client, msn, async (principal) => {
        const reference = newReference('authorized');
        await authorizedPayment(client, principal, reference);
        return { reference };
      }),
  },
  {
    name: 'payment.captured',
    summary: 'an authorized payment, captured in full',
    defaultMsn: MERCHANT_A_MSN,
    events: [payment('created'), payment('authorized'), payment('captured')],
    run: (client, msn) =>
      inUnit('payment.captured', client, msn, async (principal) => {
        const reference = newReference('captured');
        await authorizedPayment(client, principal, reference);
        await modify(client, principal, reference, 'capture', AMOUNT);
        return { reference };
      }),
  },
  {
    name: 'payment.refunded',
    summary: 'an authorized payment, captured in full, then a quarter of it refunded',
    defaultMsn: MERCHANT_A_MSN,
    events: [payment('created'), payment('authorized'), payment('captured'), payment('refunded')],
    run: (client, msn) =>
      inUnit('payment.refunded', client, msn, async (principal) => {
        const reference = newReference('refunded');
        await authorizedPayment(client, principal, reference);
        await modify(client, principal, reference, 'capture', AMOUNT);
        await modify(client, principal, reference, 'refund', AMOUNT / 4);
        return { reference };
      }),
  },
  {
    name: 'payment.cancelled',
    summary: 'an authorized payment, cancelled before any capture',
    defaultMsn: MERCHANT_A_MSN,
    events: [payment('created'), payment('authorized'), payment('cancelled')],
    run: (client, msn) =>
      inUnit('payment.cancelled', client, msn, async (principal) => {
        const reference = newReference('cancelled');
        await authorizedPayment(client, principal, reference);
        await modify(client, principal, reference, 'cancel');
        return { reference };
      }),
  },
  {
    name: 'payment.expired',
    summary: `creates a payment nobody approves and moves the unit's test clock ${PAYMENT_LIFETIME_S + 1} s forward (for good: only this unit's time)`,
    defaultMsn: MERCHANT_A_MSN,
    events: [payment('created'), payment('expired')],
    run: (client, msn) =>
      inUnit('payment.expired', client, msn, async (principal) => {
        const reference = newReference('expired');
        await createPayment(client, principal, reference);
        const moved = await client.graph<{ advanceTestClock: { userErrors: { message: string }[] } }>(
          principal,
          'mutation($seconds: Int!) { advanceTestClock(input: { seconds: $seconds }) { userErrors { message } } }',
          { seconds: PAYMENT_LIFETIME_S + 1 },
        );
        const refused = moved.advanceTestClock.userErrors[0];
        if (refused) throw new TriggerFailure(`moving the test clock: ${refused.message}`);
        return { reference };
      }),
  },
  {
    name: 'checkout.completed',
    summary: 'creates a checkout session and pays it on its checkout page as a buyer with wallet number 91234567',
    defaultMsn: MERCHANT_A_MSN,
    events: [
      'checkout.session.SessionCreated.v1',
      payment('created'),
      'checkout.session.PaymentInitiated.v1',
      payment('authorized'),
      'checkout.session.PaymentSuccessful.v1',
    ],
    run: (client, msn) =>
      withCallbackEndpoint((callbackBase) =>
        inUnit('checkout.completed', client, msn, async (principal) => {
          const reference = newReference('checkout');
          const checkout = { client_id: principal.clientId, client_secret: principal.clientSecret };
          const session = await client.send('POST', '/checkout/v3/session', {
            headers: {
              ...checkout,
              'Ocp-Apim-Subscription-Key': principal.subscriptionKey,
              'Merchant-Serial-Number': msn,
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({
              merchantInfo: {
                callbackUrl: `${callbackBase}/checkout-callback`,
                returnUrl: 'https://merchant.example/return',
                callbackAuthorizationToken: randomUUID(),
              },
              transaction: { amount: { value: AMOUNT, currency: 'NOK' }, reference, paymentDescription: 'npm run paygraph -- trigger' },
              configuration: { customerInteraction: 'CUSTOMER_NOT_PRESENT', elements: 'PaymentOnly' },
            }),
          });
          expectStatus(session, 200, 'creating the checkout session');
          const paid = await client.form(`/checkout/page/pay?token=${encodeURIComponent(session.body.token as string)}`, {
            walletPhone: '91234567',
          });
          expectStatus(paid, 200, 'paying on the checkout page');
          return { reference };
        }),
      ),
  },
  {
    name: 'qr.check-in',
    summary: 'creates a callback QR and scans it as test user 4791234567 on its scan page',
    defaultMsn: MERCHANT_A_MSN,
    events: ['user.checked-in.v1'],
    run: (client, msn) =>
      inUnit('qr.check-in', client, msn, async (principal) => {
        const qrId = newReference('qr');
        const path = `/qr/v1/merchant-callback/${qrId}`;
        expectStatus(
          await client.rest(principal, 'PUT', path, { locationDescription: 'npm run paygraph -- trigger' }),
          200,
          'creating the QR',
        );
        const qr = expectStatus(await client.rest(principal, 'GET', path, undefined, { Accept: 'image/svg+xml' }), 200, 'reading the QR');
        expectStatus(await client.form(qr.body.qrContent as string, { phoneNumber: TEST_USER_PHONE }), 200, 'scanning the QR');
        return {
          reference: qrId,
          belongs: (event) => event.name === 'user.checked-in.v1' && JSON.parse(event.payload).merchantQrId === qrId,
        };
      }),
  },
  {
    name: 'psp.payment',
    summary:
      "the PSP initiates a payment and force-approves it as test user 91234567; its make-payment callback reaches this command's own endpoint, which accepts it",
    defaultMsn: PSP_MSN,
    events: ['psp.payment.initiated.v1', 'psp.payment.accepted.v1', 'psp.payment.reserved.v1'],
    run: (client, msn) => withCallbackEndpoint((callbackBase) => pspPayment(client, msn, callbackBase)),
  },
];

const PSP_PAYMENT = `query($id: String!) { pspPayment(pspTransactionId: $id) {
  state events(first: 100) { edges { node { eventId name occurredAt } } }
} }`;

async function pspPayment(client: TestEnvironmentClient, msn: string, callbackBase: string): Promise<TriggerResult> {
  const principal = pspPrincipal(msn);
  const id = `trigger${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const initiated = await client.rest(principal, 'POST', '/psp/v3/psppayments/init', {
    pspTransactionId: id,
    merchantOrderId: `order-${id}`,
    amount: AMOUNT,
    currency: 'NOK',
    pspRedirectUrl: 'https://psp.example/return',
    makePaymentUrl: `${callbackBase}/make-payment`,
    makePaymentToken: randomUUID(),
    paymentText: 'npm run paygraph -- trigger',
  });
  expectStatus(initiated, 200, 'initiating the PSP payment');
  const token = new URL(initiated.body.vippsRedirectUrl as string).searchParams.get('token') ?? '';
  const approved = await client.rest(principal, 'POST', `/psp/v3/integration-test/psppayments/${id}/approve`, {
    customerPhoneNumber: '91234567',
    token,
  });
  expectStatus(approved, 200, 'force-approving the PSP payment');
  type Read = { pspPayment: { state: string; events: { edges: { node: TriggeredEvent }[] } } };
  // The callback goes out after the approval's answer: the payment settles when the PSP (this command) has answered.
  const settled = await until(
    () => client.graph<Read>(principal, PSP_PAYMENT, { id }),
    (read) => ['RESERVED', 'FAILED'].includes(read.pspPayment.state),
    'the PSP payment to settle',
  );
  return { scenario: 'psp.payment', msn, reference: id, events: settled.pspPayment.events.edges.map((e) => e.node) };
}

/**
 * Each approval failure trigger (README "Failure triggers"): the user's approval on the landing page is declined as
 * that failure (400, the payment stays CREATED with no event), and the user gives up.
 */
const approvalFailureScenarios: readonly Scenario[] = APPROVAL_FAILURES.map((failure) => ({
  name: `payment.failure.${failure.amount}`,
  summary: `a payment of ${failure.amount} øre; test user ${TEST_USER_PHONE}'s approval on its landing page is declined as ${failure.reason}, and the user gives up`,
  defaultMsn: MERCHANT_A_MSN,
  events: [payment('created'), payment('aborted')],
  run: (client, msn) =>
    inUnit(`payment.failure.${failure.amount}`, client, msn, async (principal) => {
      const reference = newReference(`failure-${failure.amount}`);
      const created = await createPayment(client, principal, reference, failure.amount);
      const landing = new URL(created.body.redirectUrl as string).search;
      const declined = await client.form(`/wallet/landing/approve${landing}`, { phoneNumber: TEST_USER_PHONE });
      expectStatus(declined, 400, `approving ${failure.amount} on the landing page (declined as ${failure.reason})`);
      expectStatus(await client.form(`/wallet/landing/reject${landing}`, {}), 200, 'giving up on the landing page');
      return { reference };
    }),
}));

/** Each refund trigger: a captured payment whose refund of that amount is refused with its code; no event. */
const refundFailureScenarios: readonly Scenario[] = (
  [
    [123, '5100', 'Refund not possible'],
    [124, '6220', 'Refund period expired'],
  ] as const
).map(([value, code, title]) => ({
  name: `refund.failure.${value}`,
  summary: `an authorized payment, captured in full; its refund of ${value} øre is refused as "${title}" (${code})`,
  defaultMsn: MERCHANT_A_MSN,
  events: [payment('created'), payment('authorized'), payment('captured')],
  run: (client, msn) =>
    inUnit(`refund.failure.${value}`, client, msn, async (principal) => {
      const reference = newReference(`refund-${value}`);
      await authorizedPayment(client, principal, reference);
      await modify(client, principal, reference, 'capture', AMOUNT);
      const refused = await client.rest(
        principal,
        'POST',
        `/epayment/v1/payments/${reference}/refund`,
        { modificationAmount: { currency: 'NOK', value } },
        { 'Idempotency-Key': randomUUID() },
      );
      expectStatus(refused, 400, `refunding ${value}`);
      const details = (refused.body.extraDetails ?? []) as { name: string; reason: string }[];
      if (!details.some((d) => d.name === 'ErrorCode' && d.reason === code))
        throw new TriggerFailure(`refunding ${value}: expected ErrorCode ${code}, got ${JSON.stringify(details)}`);
      return { reference };
    }),
}));

/** The shipping an Express payment offers: one paid and one free option, as WooCommerce sends them. */
const EXPRESS_OPTIONS = [
  {
    isDefault: true,
    priority: 0,
    brand: 'OTHER',
    type: 'OTHER',
    options: [{ priority: 0, name: 'Flat rate', id: 'flat_rate:1', amount: { value: 4_900, currency: 'NOK' } }],
  },
  {
    isDefault: false,
    priority: 1,
    brand: 'OTHER',
    type: 'OTHER',
    options: [{ priority: 1, name: 'Free shipping', id: 'free_shipping:2', amount: { value: 0, currency: 'NOK' } }],
  },
];

const EXPRESS_PAYMENT = `query($reference: String!) { payment(reference: $reference) {
  state amount { value } shippingDetails { shippingOptionId shippingCost { value } address { addressLine1 postCode } }
} }`;

/**
 * Express (README "Express in ePayment"): a create with `shipping`, then what a person does on its landing page: enter
 * the phone number (the page shows the user's addresses and the options), approve with the first address and the
 * paid option. The payment reserves the amount plus the option's.
 */
const expressScenario: Scenario = {
  name: 'express.shipping',
  summary: `an Express payment of ${AMOUNT / 100} NOK with a 49 NOK and a free shipping option, approved on its landing page by test user ${TEST_USER_PHONE} with her first address and the 49 NOK option (authorizes 149 NOK)`,
  defaultMsn: MERCHANT_A_MSN,
  // The profile scope Express asks for is consented to in the approval's write, which records the consent's event.
  events: [payment('created'), payment('authorized'), 'userinfo.consent.given.v1'],
  run: (client, msn) =>
    inUnit('express.shipping', client, msn, async (principal) => {
      const reference = newReference('express');
      const created = await client.rest(
        principal,
        'POST',
        '/epayment/v1/payments',
        {
          amount: { currency: 'NOK', value: AMOUNT },
          paymentMethod: { type: 'WALLET' },
          reference,
          userFlow: 'WEB_REDIRECT',
          returnUrl: 'https://merchant.example/return',
          paymentDescription: 'npm run paygraph -- trigger',
          profile: { scope: 'name address email phoneNumber' },
          shipping: { fixedOptions: EXPRESS_OPTIONS },
        },
        { 'Idempotency-Key': randomUUID() },
      );
      expectStatus(created, 201, 'creating the Express payment');
      const landing = new URL(created.body.redirectUrl as string).search;
      const page = await client.send('GET', `/wallet/landing${landing}&phoneNumber=${TEST_USER_PHONE}`, { headers: {} });
      expectStatus(page, 200, 'opening the landing page with the phone number');
      if (!page.text.includes('value="flat_rate:1"')) throw new TriggerFailure('the landing page offers no shipping option "flat_rate:1"');
      const approved = await client.form(`/wallet/landing/approve${landing}`, {
        phoneNumber: TEST_USER_PHONE,
        consent: 'yes',
        address: '0',
        shippingOptionId: 'flat_rate:1',
      });
      expectStatus(approved, 200, 'approving on the landing page with an address and the shipping');
      type Read = { payment: { state: string; amount: { value: number }; shippingDetails: { shippingOptionId: string } | null } };
      const read = await client.graph<Read>(principal, EXPRESS_PAYMENT, { reference });
      if (
        read.payment.state !== 'AUTHORIZED' ||
        read.payment.amount.value !== AMOUNT + 4_900 ||
        read.payment.shippingDetails?.shippingOptionId !== 'flat_rate:1'
      )
        throw new TriggerFailure(`the Express payment after approval: ${JSON.stringify(read.payment)}`);
      return { reference };
    }),
};

export const scenarios: readonly Scenario[] = [
  ...outcomeScenarios,
  expressScenario,
  ...approvalFailureScenarios,
  ...refundFailureScenarios,
];
