import { randomUUID } from 'node:crypto';
import { isObjectType, Kind, type OperationDefinitionNode } from 'graphql';
import { MERCHANT_B, MerchantClient, newReference, type HttpResult, type TestMerchant } from '../support/merchant-client.js';
import { connectionParamsOf, connectOnce, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { buildSchema } from '../../src/platform/graph/schema.js';
import { modules } from '../../src/modules.js';
import { fromGlobalId, toGlobalId } from '../../src/platform/graph/relay.js';
import { approveWithConsent, submitLandingForm } from '../support/user-consent.js';
import { pngImage } from '../support/images.js';
import { PspClient } from '../support/psp-client.js';
import { createSecondPsp, newIds, PSP_MSN, SECOND_PSP_MSN } from '../psp/psp-fixture.js';
import { CheckoutClient } from '../checkout/support/checkout-client.js';
import { authenticateBearer, authenticateCheckoutClient } from '../../src/platform/auth/authenticate.js';
import { headerLookup } from '../../src/platform/auth/header-lookup.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import type { HttpRequest } from '../../src/platform/rest/http-types.js';
import { refusedRootFields } from '../../src/platform/graph/principal-fields.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import { OperatorClient, operatorMutations } from '../support/operator-client.js';
import type { PrincipalClient } from '../support/principal-client.js';
import { testOperator } from '../../src/operator/operator.seed.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { WalletClient } from '../support/wallet-client.js';
import { testWalletClient } from '../../src/wallet/wallet-client.seed.js';

/** Issue 35: each wallet field with a valid input, as any principal would send it (the refusal tests send all of them). */
const walletFields: Record<string, { query: string; variables: Record<string, unknown> }> = {
  'Query.walletPendingPayments': {
    query: 'query($p: String!) { walletPendingPayments(phoneNumber: $p) { edges { node { token shopName } } } }',
    variables: { p: '4791234567' },
  },
  'Query.walletPayment': { query: 'query($t: String!) { walletPayment(token: $t) { shopName } }', variables: { t: 'any-token' } },
  'Mutation.walletApprovePayment': {
    query: 'mutation($i: WalletApprovePaymentInput!) { walletApprovePayment(input: $i) { userErrors { code } } }',
    variables: { i: { phoneNumber: '4791234567', token: 'any-token' } },
  },
  'Mutation.walletRejectPayment': {
    query: 'mutation($i: WalletRejectPaymentInput!) { walletRejectPayment(input: $i) { userErrors { code } } }',
    variables: { i: { phoneNumber: '4791234567', token: 'any-token' } },
  },
};

/** The partner's client (TEST-ENVIRONMENT.md), naming a sales unit per request. */
const partnerFor = (msn: string): TestMerchant => ({
  msn,
  clientId: 'test-client-partner',
  clientSecret: 'test-secret-partner',
  subscriptionKey: 'test-key-partner',
});
/** The PSP's client, naming the sales unit of its own merchant (PSP-kunde AS). */
const PSP: TestMerchant = { msn: '112233', clientId: 'test-client-psp', clientSecret: 'test-secret-psp', subscriptionKey: 'test-key-psp' };

let t: TestApp;
let owner: MerchantClient;
let intruder: MerchantClient;
/**
 * The principal kinds besides the two merchants: a partner acting for merchant A's sales unit (connected, and
 * consenting), for merchant B's (connected, not consenting), for a sales unit not connected to it, and a PSP.
 */
let partnerOfA: MerchantClient;
let partnerOfB: MerchantClient;
let partnerUnconnected: MerchantClient;
let psp: MerchantClient;
/** The operator's client (issue 21): covers no sales unit; it names none. */
let operator: OperatorClient;
/** Identifiers of merchant A's objects, and the same kind of identifier that exists for nobody. */
let owned: Identifiers;
let missing: Identifiers;

interface Identifiers {
  reference: string;
  paymentId: string;
  eventId: string;
  webhookId: string;
  deliveryId: string;
  /** A wallet user who consented to share a profile with merchant A's sales unit. */
  sub: string;
  // issue 13: settlement ledgers
  ledgerId: string;
  ledgerNodeId: string;
  ledgerTransactionNodeId: string;
  /** Merchant A's sales unit and organisation number (management). */
  msn: string;
  orgno: string;
  /** issue 11: a checkout session of merchant A (its reference, and its global id). */
  checkoutReference: string;
  checkoutSessionId: string;
}

beforeAll(async () => {
  t = await startTestApp();
  owner = new MerchantClient(t.baseUrl);
  intruder = new MerchantClient(t.baseUrl, MERCHANT_B);
  partnerOfA = new MerchantClient(t.baseUrl, partnerFor('123456'));
  partnerOfB = new MerchantClient(t.baseUrl, partnerFor('654321'));
  partnerUnconnected = new MerchantClient(t.baseUrl, partnerFor('112233'));
  psp = new MerchantClient(t.baseUrl, PSP);
  operator = new OperatorClient(t.baseUrl);
  // Nothing listens on port 9: the webhook's deliveries exist (and fail), which is all the probes need.
  const webhook = await owner.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['epayments.payment.created.v1'],
  });
  const reference = await owner.authorizedPayment(10_000);
  // issue 9: the payment's order has a category, so the order probes ask about a real order.
  await owner.request('PUT', `/order-management/v2/ecom/categories/${reference}`, {
    category: 'GENERAL',
    orderDetailsUrl: 'https://a.example/o',
  });
  // issue 9: A's redirect QR and callback QR named by qrId(owned), so the QR probes ask about real ones.
  const qrs = [
    await owner.request('POST', '/qr/v1/merchant-redirect', { id: 'tenant-qr', redirectUrl: 'https://a.example/qr' }, SVG),
    await owner.request('PUT', '/qr/v1/merchant-callback/tenant-qr', { locationDescription: 'Till 1' }),
  ];
  if (qrs.some((r) => r.status >= 300)) throw new Error(`QR set-up: ${qrs.map((r) => `${r.status} ${r.text}`)}`);
  const res = await owner.graphql('query($r: String!) { payment(reference: $r) { id events { edges { node { id } } } } }', {
    r: reference,
  });
  const deliveryId = await firstDeliveryOf(webhook.body.id);
  owned = {
    reference,
    paymentId: res.body.data.payment.id,
    eventId: res.body.data.payment.events.edges[0].node.id,
    webhookId: webhook.body.id,
    deliveryId,
    sub: (await approveWithConsent(owner, 'name email')).sub,
    ...(await ledgerIdentifiers()),
    msn: '123456',
    orgno: '920000002',
    ...(await ownedCheckoutSession()),
  };
  missing = {
    reference: newReference(),
    paymentId: toGlobalId('Payment', randomUUID()),
    eventId: toGlobalId('PaymentEvent', 987654321),
    webhookId: randomUUID(),
    deliveryId: toGlobalId('WebhookDelivery', 987654321),
    sub: randomUUID(),
    ledgerId: '999999999',
    ledgerNodeId: toGlobalId('Ledger', 999999999),
    ledgerTransactionNodeId: toGlobalId('LedgerTransaction', 987654321),
    msn: '99999',
    orgno: '920000061',
    checkoutReference: newReference('co'),
    checkoutSessionId: toGlobalId('CheckoutSession', 'no-such-session-id'),
  };
});

// issue 11: a checkout session of merchant A, opened over the checkout API with A's client credentials.
async function ownedCheckoutSession(): Promise<{ checkoutReference: string; checkoutSessionId: string }> {
  const checkoutReference = newReference('co');
  const created = await new CheckoutClient(t.baseUrl).createSession({ transaction: { reference: checkoutReference } });
  if (created.status !== 200) throw new Error(`checkout session: ${created.text}`);
  const res = await owner.graphql('query($r: String!) { checkoutSession(reference: $r) { id } }', { r: checkoutReference });
  return { checkoutReference, checkoutSessionId: res.body.data.checkoutSession.id };
}
const sockets: Subscriber[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await t.close();
});

// issue 13: merchant A's ledger and a row of it (a capture of a payment of its own).
async function ledgerIdentifiers(): Promise<Pick<Identifiers, 'ledgerId' | 'ledgerNodeId' | 'ledgerTransactionNodeId'>> {
  const captured = await owner.authorizedPayment(5_000);
  await owner.modify(captured, 'capture', 5_000);
  const res = await owner.graphql(
    'query($r: String!) { ledgers { edges { node { id ledgerId } } } payment(reference: $r) { ledgerTransactions { id } } }',
    { r: captured },
  );
  const ledger = res.body.data.ledgers.edges[0].node;
  return { ledgerId: ledger.ledgerId, ledgerNodeId: ledger.id, ledgerTransactionNodeId: res.body.data.payment.ledgerTransactions[0].id };
}

/** The report API's error body carries the request's own `contextId`: blanked like a trace id. */
async function ledgerProbe(c: MerchantClient, path: string): Promise<HttpResult> {
  const res = await c.request('GET', path);
  return typeof res.body?.contextId === 'string' ? { ...res, body: { ...res.body, contextId: '<trace>' } } : res;
}

/** The outbox dispatcher creates deliveries in the background: wait for the first one. */
async function firstDeliveryOf(webhookId: string): Promise<string> {
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; ;) {
    const res = await owner.graphql('query($id: ID!) { webhookDeliveries(webhookId: $id) { edges { node { id } } } }', { id: webhookId });
    const id = res.body.data?.webhookDeliveries?.edges[0]?.node.id;
    if (id) return id;
    if (Date.now() > deadline) throw new Error(`no webhook delivery: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function rootFields(): string[] {
  const schema = buildSchema(modules.flatMap((m) => m.resolvers ?? []));
  return ['Query', 'Mutation', 'Subscription'].flatMap((name) => {
    const type = schema.getType(name);
    return isObjectType(type) ? Object.keys(type.getFields()).map((field) => `${name}.${field}`) : [];
  });
}

type Probe = (client: MerchantClient, ids: Identifiers) => Promise<HttpResult>;
/** `none`: nothing to probe, and why. `socket`: probed over graphql-ws by a test of its own, named there. */
type Entry = Probe | { none: string } | { socket: string };

/**
 * Every REST route, by method and pattern. A route that takes or returns a merchant's object has a probe; one that
 * does not says why. A route missing from this table fails the suite.
 */
const restMatrix: Record<string, Entry> = {
  'POST /accesstoken/get': { none: 'issues tokens for the caller’s own credentials' },
  'POST /epayment/v1/payments': { none: 'creates; references are scoped per sales unit (covered by lifecycle tests)' },
  'GET /epayment/v1/payments/{reference}': (c, ids) => c.getPayment(ids.reference),
  'GET /epayment/v1/payments/{reference}/events': (c, ids) => c.events(ids.reference),
  'POST /epayment/v1/payments/{reference}/capture': (c, ids) => c.modify(ids.reference, 'capture', 100, 'tenant-capture'),
  'POST /epayment/v1/payments/{reference}/refund': (c, ids) => c.modify(ids.reference, 'refund', 100, 'tenant-refund'),
  'POST /epayment/v1/payments/{reference}/cancel': (c, ids) => c.modify(ids.reference, 'cancel', undefined, 'tenant-cancel'),
  'POST /epayment/v1/test/payments/{reference}/approve': (c, ids) => c.forceApprove(ids.reference),
  'GET /wallet/landing': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/landing/approve': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/landing/reject': { none: 'public: identified by an unguessable token, not by merchant' },
  'GET /wallet/qr': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/landing/state': { none: 'public: identified by an unguessable token, not by merchant' },
  'GET /': { none: 'the front page: links only, no data' },
  'GET /dashboard': { none: 'a page without data: what it shows it reads from the graph with the signed-in credentials' },
  'GET /graphql': { none: 'the IDE page (HTML, test environment only); its operations go through POST /graphql' },
  'GET /assets/{file}': { none: 'the pages’ bundles, the same for everyone' },
  'GET /webhooks/v1/webhooks': { none: 'lists only the caller’s sales unit (webhooks-api tests)' },
  'POST /webhooks/v1/webhooks': { none: 'registers for the caller’s sales unit' },
  'DELETE /webhooks/v1/webhooks/{id}': (c, ids) => c.request('DELETE', `/webhooks/v1/webhooks/${ids.webhookId}`),
  // issue 12: user profiles
  'GET /vipps-userinfo-api/userinfo/{sub}': async (c, ids) => {
    const res = await c.request('GET', `/vipps-userinfo-api/userinfo/${ids.sub}`);
    // The userinfo error's `instance` is the request's trace id (a new one each time), like `traceId` elsewhere.
    return typeof res.body?.instance === 'string' ? { ...res, body: { ...res.body, instance: '<trace>' } } : res;
  },
  // issue 13: settlement ledgers
  'GET /settlement/v1/ledgers': { none: "lists only the ledgers the caller's keys cover (test/ledgers/ledger-api.test.ts)" },
  'GET /report/v1/ledgertransactions': (c, ids) => ledgerProbe(c, `/report/v1/ledgertransactions?ledgerId=${ids.ledgerId}`),
  'GET /report/v1/ledgertransactions/{ledgerId}': (c, ids) => ledgerProbe(c, `/report/v1/ledgertransactions/${ids.ledgerId}`),
  // issue 11: checkout sessions
  'POST /checkout/v3/session': { none: 'creates in the caller’s sales unit; a reference is scoped per sales unit (checkout-api tests)' },
  'GET /checkout/v3/session/{reference}': {
    none: 'authenticates with a merchant’s client_id/client_secret only (no partner, no token): probed with merchant B’s checkout credentials in the issue 11 block below',
  },
  'PATCH /checkout/v3/session/{reference}': {
    none: 'checkout client credentials only: probed with merchant B’s checkout credentials in the issue 11 block below (issue 19)',
  },
  'POST /checkout/v3/session/{reference}/expire': {
    none: 'checkout client credentials only: probed with merchant B’s checkout credentials in the issue 11 block below (issue 19)',
  },
  'GET /qr/v1/openapi.json': { none: 'the QR interface’s OpenAPI document, the same for everyone' },
  'GET /merchant-portal/contracts/agreement.pdf': {
    none: 'public: a short-lived link signed for one caller and one merchant; the caller’s access is checked again when opened (test/management)',
  },
  'GET /checkout/page': { none: 'public: identified by an unguessable session token, not by merchant' },
  'POST /checkout/page/shipping': { none: 'public: identified by an unguessable session token, not by merchant' },
  'POST /checkout/page/pay': { none: 'public: identified by an unguessable session token, not by merchant' },
  'POST /checkout/page/cancel': { none: 'public: identified by an unguessable session token, not by merchant' },
  'POST /checkout/page/state': {
    none: 'public: identified by an unguessable session token, not by merchant; answers only that session’s state (test/pages/live-state.test.ts)',
  },
  'GET /vipps-userinfo-api/userinfo/': {
    none: "the wallet user's own token names the consent and its sales unit; another merchant's key is refused (test/user-profiles/userinfo.test.ts)",
  },
  // issue 12: management and the deprecated partner API. Merchant A's unit and organisation number answer another
  // merchant (and a partner acting for merchant B) exactly like ones that do not exist.
  'GET /management/v1/merchants': {
    none: 'lists only the merchants whose data the caller may read, as the single read does (the issue 20 block below)',
  },
  'GET /management/v1/merchants/{orgno}': (c, ids) => c.request('GET', `/management/v1/merchants/${ids.orgno}`, undefined, SYSTEM),
  'GET /management/v1/merchants/{orgno}/contracts': (c, ids) =>
    c.request('GET', `/management/v1/merchants/${ids.orgno}/contracts`, undefined, SYSTEM),
  'GET /management/v1/merchants/{orgno}/contracts/agreement.pdf': (c, ids) =>
    c.request('GET', `/management/v1/merchants/${ids.orgno}/contracts/agreement.pdf`, undefined, SYSTEM),
  'GET /management/v1/merchants/{orgno}/sales-units': (c, ids) =>
    c.request('GET', `/management/v1/merchants/${ids.orgno}/sales-units`, undefined, SYSTEM),
  // issue 19: management 1.1.x's business identifier paths.
  'GET /management/v1/merchants/{scheme}/{id}': (c, ids) =>
    c.request('GET', `/management/v1/merchants/business:NO:ORG/${ids.orgno}`, undefined, SYSTEM),
  'GET /management/v1/merchants/{scheme}/{id}/contracts': (c, ids) =>
    c.request('GET', `/management/v1/merchants/business:NO:ORG/${ids.orgno}/contracts`, undefined, SYSTEM),
  'GET /management/v1/merchants/{scheme}/{id}/sales-units': (c, ids) =>
    c.request('GET', `/management/v1/merchants/business:NO:ORG/${ids.orgno}/sales-units`, undefined, SYSTEM),
  'GET /management/v1/sales-units': { none: 'lists only the caller’s sales units (test/management/management-api.test.ts)' },
  'GET /management/v1/sales-units/{msn}': (c, ids) => c.request('GET', `/management/v1/sales-units/${ids.msn}`, undefined, SYSTEM),
  'PATCH /management/v1/sales-units/{msn}': (c, ids) =>
    c.request('PATCH', `/management/v1/sales-units/${ids.msn}`, { name: 'Taken over' }, SYSTEM),
  'GET /management/v1/api-quality/sales-units/{msn}': (c, ids) =>
    c.request('GET', `/management/v1/api-quality/sales-units/${ids.msn}`, undefined, SYSTEM),
  'POST /management/v1/product-orders': { none: 'partners only; creates the caller’s own order' },
  'GET /management/v1/product-orders/{prefilledOrderId}': {
    none: 'partner-owned: a merchant is refused (403), the partner reads only its own, an unknown id is 404 (test/management/product-orders.test.ts)',
  },
  'DELETE /management/v1/product-orders/{prefilledOrderId}': {
    none: 'partner-owned: a merchant is refused (403), the partner undoes only its own (test/management/product-orders.test.ts)',
  },
  'GET /management/v1/partners/whoami': { none: 'the caller itself (partners only)' },
  'GET /management/v1/partners/price-packages': { none: 'the same for every partner' },
  'GET /merchant-portal/prefill': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /merchant-portal/prefill/submit': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /partner-api/v1/products/orders': { none: 'partners only; creates the caller’s own order' },
  'GET /partner-api/v0/merchants/{orgno}': (c, ids) => c.request('GET', `/partner-api/v0/merchants/${ids.orgno}`),
  'GET /partner-api/v0/salesunits/{msn}': (c, ids) => c.request('GET', `/partner-api/v0/salesunits/${ids.msn}`),
  // issue 10: PSP payments (probed PSP against PSP in the issue 10 block below; merchants are refused 403)
  'POST /psp/v3/psppayments/init': { none: 'creates for the calling PSP’s sales unit; another’s sales unit is 403 (issue 10 block)' },
  'POST /psp/v3/psppayments/updatestatus': { none: 'probed PSP against PSP in the issue 10 block' },
  'GET /psp/v3/psppayments/{pspTransactionId}/details': { none: 'probed PSP against PSP in the issue 10 block' },
  'POST /psp/v3/psppayments/payments': { none: 'the User-Token names an agreement of one PSP and sales unit (issue 10 block)' },
  'DELETE /psp/v3/psppayments/agreements': { none: 'the User-Token names an agreement of one PSP and sales unit (issue 10 block)' },
  'POST /psp/v3/integration-test/psppayments/{pspTransactionId}/approve': { none: 'probed PSP against PSP in the issue 10 block' },
  'GET /wallet/psp': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/psp/approve': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/psp/cancel': { none: 'public: identified by an unguessable token, not by merchant' },
  'POST /wallet/psp/state': {
    none: 'public: identified by an unguessable token, not by merchant; answers only that payment’s state (test/pages/live-state.test.ts)',
  },
  'GET /merchant-management/psp/v1/merchants': { none: 'lists the calling PSP’s merchants only (test/psp/psp-signup.test.ts)' },
  'POST /merchant-management/psp/v1/merchants': { none: 'signs up for the calling PSP' },
  'GET /merchant-management/psp/v1/merchants/{merchantSerialNumber}': { none: 'probed PSP against PSP in the issue 10 block' },
  'PATCH /merchant-management/psp/v1/merchants/{merchantSerialNumber}': { none: 'probed PSP against PSP in the issue 10 block' },
  // issue 9: order management. Writes go to the caller's own order of that id (orders are keyed by sales unit):
  // another merchant writing "the same" id changes nothing of A's (test/orders/order-management.test.ts, tenancy).
  'PUT /order-management/v2/{paymentType}/categories/{orderId}': { none: "writes the caller's own order of that id" },
  'POST /order-management/v1/images': { none: "uploads to the caller's own images; an imageId of another merchant is unknown" },
  'GET /order-management/v2/{paymentType}/{orderId}': async (c, ids) =>
    traced(await c.request('GET', `/order-management/v2/ecom/${ids.reference}`)),
  'POST /order-management/v2/{paymentType}/receipts/{orderId}': { none: "writes the caller's own order of that id" },
  'PUT /order-management/v1/orders/{transactionId}': {
    none: "a transactionId resolves among the caller's payments only; writes its own order",
  },
  'GET /order-management/v1/orders/{transactionId}': async (c, ids) =>
    traced(await c.request('GET', `/order-management/v1/orders/${ids.reference}`)),
  'GET /order-management/v1/receipts/{transactionId}': async (c, ids) =>
    traced(await c.request('GET', `/order-management/v1/receipts/${ids.reference}`)),
  'POST /order-management/v1/receipts/{transactionId}': {
    none: "a transactionId resolves among the caller's payments only; writes its own order",
  },
  // issue 9: QR. QRs are keyed by sales unit: a write of "the same" id is the caller's own QR (test/qr/qr.test.ts).
  'POST /qr/v1/merchant-redirect': { none: "creates in the caller's sales unit" },
  'GET /qr/v1/merchant-redirect': { none: "lists only the caller's sales unit (test/qr/qr.test.ts)" },
  'GET /qr/v1/merchant-redirect/{id}': async (c, ids) =>
    traced(await c.request('GET', `/qr/v1/merchant-redirect/${qrId(ids)}`, undefined, SVG)),
  'PUT /qr/v1/merchant-redirect/{id}': async (c, ids) =>
    traced(await c.request('PUT', `/qr/v1/merchant-redirect/${qrId(ids)}`, { redirectUrl: 'https://x.example' }, SVG)),
  'DELETE /qr/v1/merchant-redirect/{id}': async (c, ids) => traced(await c.request('DELETE', `/qr/v1/merchant-redirect/${qrId(ids)}`)),
  'POST /qr/v1': { none: "a landing URL of another merchant's payment is refused like a made-up one (test/qr/qr.test.ts)" },
  'GET /qr/v1/merchant-callback': { none: "lists only the caller's sales unit (test/qr/qr.test.ts)" },
  'GET /qr/v1/merchant-callback/{merchantQrId}': async (c, ids) =>
    traced(await c.request('GET', `/qr/v1/merchant-callback/${qrId(ids)}`, undefined, SVG)),
  'PUT /qr/v1/merchant-callback/{merchantQrId}': { none: "creates or updates the caller's own callback QR of that id" },
  'DELETE /qr/v1/merchant-callback/{merchantQrId}': async (c, ids) =>
    traced(await c.request('DELETE', `/qr/v1/merchant-callback/${qrId(ids)}`)),
  'PUT /qr/v1/merchant-callback/mobilepay/{beaconId}': { none: "maps a beacon to the caller's own sales unit" },
  'GET /qr/public/images/{file}': { none: 'public: an unguessable key names the image, not a merchant' },
  'GET /qr/public/redirect/{key}': { none: 'public: an unguessable key names the redirect, not a merchant' },
  'GET /qr/scan/{key}': { none: "public: the wallet user's scan page, named by an unguessable key" },
  'POST /qr/scan/{key}': { none: "public: the wallet user's scan, named by an unguessable key" },
};
const SVG = { Accept: 'image/svg+xml' };
/** issue 9: merchant A's QR id, or one that exists for nobody. */
function qrId(ids: Identifiers): string {
  return ids === owned ? 'tenant-qr' : 'missing-qr';
}

/** issue 9: the `invalidParams` body's `instance` is the request's trace id (a new one each time), like `traceId` elsewhere. */
function traced(res: HttpResult): HttpResult {
  return typeof res.body?.instance === 'string' ? { ...res, body: { ...res.body, instance: '<trace>' } } : res;
}

/** The system headers the management interface requires. */
const SYSTEM = {
  'Svc-System-Name': 'tenant-isolation',
  'Svc-System-Version': '1',
  'Svc-System-Plugin-Name': 'jest',
  'Svc-System-Plugin-Version': '1',
};

const gql =
  (query: string, pick: (ids: Identifiers) => Record<string, unknown>): Probe =>
  (c, ids) =>
    c.graphql(query, pick(ids));

/** Every root field of the graph, by `Type.field` (a second probe of a field adds `(what)`); same rule as the REST table. */
const graphMatrix: Record<string, Entry> = {
  'Query.node': gql('query($id: ID!) { node(id: $id) { id } }', (ids) => ({ id: ids.paymentId })),
  'Query.node(event)': gql('query($id: ID!) { node(id: $id) { id } }', (ids) => ({ id: ids.eventId })),
  'Query.payment': gql('query($r: String!) { payment(reference: $r) { reference } }', (ids) => ({ r: ids.reference })),
  'Query.payments': { none: 'lists and searches only the caller’s sales unit (checked below; test/graphql/payment-search.test.ts)' },
  // issue 37: the deployment's environment (what `trigger` checks), and payments that need attention
  'Query.serviceEnvironment': { none: 'no tenant data: the deployment’s environment, the same answer for every caller' },
  'Query.paymentsNeedingAttention': {
    none: 'lists only the caller’s sales unit (test/payments/payment-attention.test.ts: merchant B and a partner acting for B see none of A’s)',
  },
  'Mutation._empty': { none: 'placeholder field' },
  'Mutation.createPayment': { none: 'creates in the caller’s sales unit' },
  'Mutation.capturePayment': gql(
    'mutation($r: String!) { capturePayment(input: { idempotencyKey: "t-cap", reference: $r, amount: { value: 100, currency: NOK } }) { payment { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.reference }),
  ),
  'Mutation.refundPayment': gql(
    'mutation($r: String!) { refundPayment(input: { idempotencyKey: "t-ref", reference: $r, amount: { value: 100, currency: NOK } }) { payment { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.reference }),
  ),
  'Mutation.cancelPayment': gql(
    'mutation($r: String!) { cancelPayment(input: { idempotencyKey: "t-can", reference: $r }) { payment { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.reference }),
  ),
  'Query.webhooks': { none: 'lists only the caller’s sales unit (webhooks-api tests)' },
  'Query.salesUnits': { none: 'lists the caller’s own merchant’s sales units (test/pages/dashboard-graph.test.ts)' },
  'Query.paymentTotals': { none: 'counts only the caller’s sales unit (test/pages/dashboard-graph.test.ts)' },
  'Query.paymentEventsPerMinute': { none: 'counts only the caller’s sales unit (test/pages/dashboard-graph.test.ts)' },
  'Query.events': { none: 'lists only the caller’s sales unit (test/graphql/event-connection.test.ts)' },
  'Query.events(afterEventId)': gql(
    'query($e: ID) { events(order: OLDEST_FIRST, afterEventId: $e) { edges { node { eventId } } } }',
    (ids) => ({ e: fromGlobalId(ids.eventId)!.key }),
  ),
  // issue 37: the body a webhook of the event carries, what `paygraph listen` forwards, read after another unit's event
  'Query.events(webhookBody)': gql(
    'query($e: ID) { events(order: OLDEST_FIRST, afterEventId: $e) { edges { node { eventId webhookBody } } } }',
    (ids) => ({ e: fromGlobalId(ids.eventId)!.key }),
  ),
  'Query.recentPaymentEvents': { none: 'lists only the caller’s sales unit (test/pages/dashboard-graph.test.ts)' },
  'Query.webhookDeliveries': gql('query($id: ID!) { webhookDeliveries(webhookId: $id) { edges { node { id } } } }', (ids) => ({
    id: ids.webhookId,
  })),
  'Mutation.registerWebhook': { none: 'registers for the caller’s sales unit' },
  'Mutation.redeliverFailedWebhookDeliveries': gql(
    'mutation($id: ID!) { redeliverFailedWebhookDeliveries(input: { webhookId: $id }) { redelivered userErrors { code field message } } }',
    (ids) => ({ id: ids.webhookId }),
  ),
  'Mutation.deleteWebhook': gql(
    'mutation($id: ID!) { deleteWebhook(input: { id: $id }) { deletedWebhookId userErrors { code field message } } }',
    (ids) => ({ id: ids.webhookId }),
  ),
  // issue 9: order management
  'Query.order': gql('query($o: String!) { order(paymentType: ECOM, orderId: $o) { orderId category { orderDetailsUrl } } }', (ids) => ({
    o: ids.reference,
  })),
  'Mutation.setOrderCategory': { none: "writes the caller's own order of that id" },
  'Mutation.addOrderImage': { none: "uploads to the caller's own images" },
  'Mutation.addOrderReceipt': { none: "writes the caller's own order of that id" },
  // issue 9: QR
  'Query.redirectQrs': { none: "lists only the caller's sales unit (test/qr/qr.test.ts)" },
  'Query.callbackQrs': { none: "lists only the caller's sales unit (test/qr/qr.test.ts)" },
  'Mutation.createRedirectQr': { none: "creates in the caller's sales unit" },
  'Mutation.updateRedirectQr': gql(
    'mutation($id: String!) { updateRedirectQr(input: { id: $id, redirectUrl: "https://x.example" }) { redirectQr { id } userErrors { code field } } }',
    (ids) => ({ id: qrId(ids) }),
  ),
  'Mutation.deleteRedirectQr': gql(
    'mutation($id: String!) { deleteRedirectQr(input: { id: $id }) { deletedId userErrors { code field } } }',
    (ids) => ({
      id: qrId(ids),
    }),
  ),
  'Mutation.setCallbackQr': { none: "creates or updates the caller's own callback QR of that id" },
  'Mutation.deleteCallbackQr': gql(
    'mutation($id: String!) { deleteCallbackQr(input: { merchantQrId: $id }) { deletedMerchantQrId userErrors { code field } } }',
    (ids) => ({ id: qrId(ids) }),
  ),
  'Subscription.qrCheckIns': { socket: "bound to the connection's sales unit (test/qr/qr.test.ts: merchant B's subscriber hears nothing)" },
  'Mutation.redeliverWebhookDelivery': gql(
    'mutation($id: ID!) { redeliverWebhookDelivery(input: { deliveryId: $id }) { delivery { id } userErrors { code field message } } }',
    (ids) => ({ id: ids.deliveryId }),
  ),
  'Mutation.approveTestPayment': gql(
    'mutation($r: String!) { approveTestPayment(input: { reference: $r }) { payment { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.reference }),
  ),
  // issue 13: settlement ledgers
  'Query.ledgers': { none: "lists only the ledger of the caller's sales unit, when its keys cover it (test/ledgers/ledger-api.test.ts)" },
  'Query.ledger': gql('query($id: String!) { ledger(ledgerId: $id) { ledgerId } }', (ids) => ({ id: ids.ledgerId })),
  'Query.node(ledger)': gql('query($id: ID!) { node(id: $id) { id } }', (ids) => ({ id: ids.ledgerNodeId })),
  'Query.node(ledger transaction)': gql('query($id: ID!) { node(id: $id) { id } }', (ids) => ({ id: ids.ledgerTransactionNodeId })),
  'Query.testClock': {
    none: "the clock of the sales unit the caller may act for (its scope); another unit's is a 403 (test clocks block below)",
  },
  'Mutation.advanceTestClock': {
    none: "moves only the clock of the sales unit the caller may act for; B's advance leaves A's payments and tokens as they were (test clocks block below)",
  },
  // issue 12: management
  'Query.viewer': {
    none: 'lists only what the caller sees: a merchant itself, a partner its connected units, a PSP the merchants it signed up (test/management/management-graph.test.ts)',
  },
  'Mutation.giveMerchantConsent': {
    none: 'the merchant’s own units only; a partner is refused (test/management/management-graph.test.ts)',
  },
  'Mutation.withdrawMerchantConsent': {
    none: 'the merchant’s own units only; a partner is refused (test/management/management-graph.test.ts)',
  },
  'Mutation.updateSalesUnit': gql(
    'mutation($msn: String!) { updateSalesUnit(input: { msn: $msn, name: "Taken over" }) { salesUnit { msn } userErrors { code field } } }',
    (ids) => ({ msn: ids.msn }),
  ),
  // issue 11: checkout sessions
  'Query.checkoutSession': gql('query($r: String!) { checkoutSession(reference: $r) { reference sessionState } }', (ids) => ({
    r: ids.checkoutReference,
  })),
  'Query.node(checkout session)': gql('query($id: ID!) { node(id: $id) { id } }', (ids) => ({ id: ids.checkoutSessionId })),
  'Query.checkoutSessions': { none: 'lists only the caller’s sales unit (checked in the issue 11 block below)' },
  'Mutation.createCheckoutSession': { none: 'creates in the caller’s sales unit' },
  // issue 19: the merchant's update and expiry of a session
  'Mutation.updateCheckoutSession': gql(
    'mutation($r: String!) { updateCheckoutSession(input: { reference: $r, transaction: { paymentDescription: "Changed" } }) { session { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.checkoutReference }),
  ),
  'Mutation.expireCheckoutSession': gql(
    'mutation($r: String!) { expireCheckoutSession(input: { reference: $r }) { session { reference } userErrors { code field } } }',
    (ids) => ({ r: ids.checkoutReference }),
  ),
  'Subscription.checkoutSessionEvents': {
    socket:
      'probed over graphql-ws in test/checkout/checkout-graph.test.ts: another merchant subscribed to the same reference gets nothing',
  },
  'Subscription.paymentEvents': { socket: 'probed over graphql-ws below: a subscription to another merchant’s reference' },
  'Subscription.streamEvents': {
    socket:
      "probed over graphql-ws in test/graphql/stream-events-subscription.test.ts: bound to the connection's sales unit, another merchant's events neither replayed nor live",
  },
  'Subscription.streamEvents(webhookBody)': {
    socket:
      "bound to the connection's sales unit as streamEvents is (test/graphql/stream-events-subscription.test.ts); listen reads it for one unit (test/operations/listen-receiver.test.ts)",
  },
  // issue 10: PSP payments (PSP-only fields: probed PSP against PSP in the issue 10 block below)
  'Query.pspPayment': { none: 'the calling PSP’s payments only (issue 10 block)' },
  'Query.pspPayments': { none: 'the calling PSP’s payments only (issue 10 block)' },
  'Mutation.initiatePspPayment': { none: 'creates for the calling PSP’s sales unit (issue 10 block)' },
  'Mutation.updatePspStatus': { none: 'probed PSP against PSP in the issue 10 block' },
  'Subscription.pspPaymentChanges': { socket: 'probed over graphql-ws in the issue 10 block' },
  'Query.pspMerchants': { none: 'lists the calling PSP’s merchants only (test/psp/psp-signup.test.ts)' },
  'Mutation.signUpPspMerchant': { none: 'signs up for the calling PSP' },
  'Mutation.updatePspMerchant': { none: 'probed PSP against PSP in the issue 10 block' },
  // issue 35: the wallet app's fields act for the app's users, never for a merchant: every merchant, partner, PSP and
  // the operator is refused each of them, and the wallet client every other field (the wallet block below).
  ...Object.fromEntries(
    Object.keys(walletFields).map((field) => [
      field,
      { none: 'wallet only: refused to every other principal; shows a payment only as its user sees it in the app (wallet block)' },
    ]),
  ),
  // issue 21: the operator's mutations (@operatorOnly) hold no tenant's object: every merchant, partner and PSP is
  // refused each of them, and the operator every other field (the operator block below).
  ...Object.fromEntries(
    Object.keys(operatorMutations).map((name) => [
      `Mutation.${name}`,
      { none: 'operator only: refused to every other principal (operator block)' },
    ]),
  ),
};

/** What a caller can tell from an answer: status and body, with the identifier asked about and per-request ids blanked. */
function observable(result: HttpResult, ids: Identifiers): string {
  let text = JSON.stringify({ status: result.status, body: result.body });
  for (const id of Object.values(ids)) text = text.split(id).join('<id>');
  return text.replace(/"traceId":"[^"]+"/g, '"traceId":"<trace>"');
}

describe('tenant isolation', () => {
  test('every REST route has an entry', () => {
    const routes = t.app.router.routes.map((r) => `${r.method} ${r.pattern}`);
    expect(routes.filter((r) => !(r in restMatrix))).toEqual([]);
  });

  test('every root field of the graph has an entry', () => {
    expect(rootFields().filter((f) => !(f in graphMatrix))).toEqual([]);
  });

  // An entry for a route or field that is gone would pass for coverage that no longer exists.
  test('every REST entry names a route that exists', () => {
    const routes = new Set(t.app.router.routes.map((r) => `${r.method} ${r.pattern}`));
    expect(Object.keys(restMatrix).filter((entry) => !routes.has(entry))).toEqual([]);
  });

  test('every graph entry names a root field that exists', () => {
    const fields = new Set(rootFields());
    expect(Object.keys(graphMatrix).filter((entry) => !fields.has(entry.replace(/\(.*\)$/, '')))).toEqual([]);
  });

  const probes = (matrix: Record<string, Entry>) => Object.entries(matrix).filter((e): e is [string, Probe] => typeof e[1] === 'function');

  test.each(probes(restMatrix))("REST %s: another merchant's identifier answers exactly like a missing one", async (_, probe) => {
    const foreign = await probe(intruder, owned);
    const absent = await probe(intruder, missing);
    expect(observable(foreign, owned)).toEqual(observable(absent, missing));
    expect(foreign.status).toBe(404);
  });

  test.each(probes(graphMatrix))("graph %s: another merchant's identifier answers exactly like a missing one", async (_, probe) => {
    const foreign = await probe(intruder, owned);
    const absent = await probe(intruder, missing);
    expect(observable(foreign, owned)).toEqual(observable(absent, missing));
  });

  // A partner acts for merchant B's sales unit (connected, no consent needed to act) exactly as B does: A's objects
  // are as missing to it as to B.
  test.each(probes(restMatrix))("REST %s: a partner acting for merchant B sees A's identifier as missing", async (_, probe) => {
    const foreign = await probe(partnerOfB, owned);
    const absent = await probe(partnerOfB, missing);
    expect(observable(foreign, owned)).toEqual(observable(absent, missing));
    expect(foreign.status).toBe(404);
  });

  test.each(probes(graphMatrix))("graph %s: a partner acting for merchant B sees A's identifier as missing", async (_, probe) => {
    expect(observable(await probe(partnerOfB, owned), owned)).toEqual(observable(await probe(partnerOfB, missing), missing));
  });

  // Acting for A's sales unit, the partner is let in to A's tenancy: on a missing identifier it gets exactly A's
  // answer (never a 403), and it reads A's payment. (Probing A's objects would modify them.)
  test.each(probes(restMatrix))('REST %s: a partner acting for a connected sales unit is answered as its merchant', async (_, probe) => {
    expect(observable(await probe(partnerOfA, missing), missing)).toEqual(observable(await probe(owner, missing), missing));
  });

  test.each(probes(graphMatrix))('graph %s: a partner acting for a connected sales unit is answered as its merchant', async (_, probe) => {
    expect(observable(await probe(partnerOfA, missing), missing)).toEqual(observable(await probe(owner, missing), missing));
  });

  test("a partner acting for a connected sales unit reads that merchant's payment", async () => {
    const asPartner = await partnerOfA.getPayment(owned.reference);
    expect(asPartner.status).toBe(200);
    expect(asPartner.body).toEqual((await owner.getPayment(owned.reference)).body);
  });

  /**
   * Every route of an authenticated interface, with the identifiers of A's objects, and with an Idempotency-Key
   * where the route requires one (a missing header would be a 400 before the credentials are looked at).
   */
  function authenticatedRoutes(forPsp: boolean): { name: string; call: (client: PrincipalClient) => Promise<HttpResult> }[] {
    // Routes that take a bearer token; checkout's client credentials are refused as 401 (issue 11 block). A PSP's
    // own interfaces serve it, so they are left out where the refused caller is a PSP.
    return t.app.router.declaredInterfaces
      .flatMap((restInterface) => restInterface.routes)
      .filter((route) => route.auth !== 'public' && route.auth.method === 'bearer' && (!forPsp || !route.auth.accepts.includes('psp')))
      .map((route) => {
        const path = route.pattern.replace('{reference}', owned.reference).replace('{id}', owned.webhookId);
        const headers: Record<string, string> = route.idempotent ? { 'Idempotency-Key': randomUUID() } : {};
        return {
          name: `${route.method} ${route.pattern}`,
          call: (client) => client.request(route.method, path, route.body ? {} : undefined, headers),
        };
      });
  }

  const refused: [string, () => MerchantClient, string][] = [
    ['a partner naming a sales unit not connected to it', () => partnerUnconnected, 'FORBIDDEN_SALES_UNIT'],
    ['a PSP', () => psp, 'FORBIDDEN_PRINCIPAL'],
  ];

  test.each(refused)('%s is refused (403) on every route of the merchant REST interfaces', async (_, client, code) => {
    const routes = authenticatedRoutes(code === 'FORBIDDEN_PRINCIPAL');
    expect(routes.length).toBeGreaterThan(0);
    const statuses = Object.fromEntries(await Promise.all(routes.map(async (r) => [r.name, (await r.call(client())).status] as const)));
    expect(statuses).toEqual(Object.fromEntries(routes.map((r) => [r.name, 403])));
  });

  test.each(refused)('%s is refused on every probed field of the graph, before any resolver runs', async (_, client) => {
    const answers = await Promise.all([
      ...probes(graphMatrix).map(([, probe]) => probe(client(), owned)),
      client().graphql('{ __typename }'),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
  });

  // issue 10: a PSP opens a socket for its own subscription (pspPaymentChanges); merchant fields stay refused there.
  test.each(refused.slice(0, 1))('%s cannot open a subscription socket', async (_, client) => {
    expect(await connectOnce(t.baseUrl, await connectionParamsOf(client()))).toEqual({ acknowledged: false, closeCode: 4403 });
  });

  test.each(refused)('%s: the ePayment problem names why', async (_, client, code) => {
    const res = await client().getPayment(owned.reference);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.extraDetails[0].name).toBe(code === 'FORBIDDEN_SALES_UNIT' ? 'Merchant-Serial-Number' : 'Authorization');
  });

  // issue 21: the operator's credential covers no sales unit; its fields are its own.
  test('the operator is refused (403, the credential named) on every route of every bearer interface, with or without an MSN', async () => {
    const routes = authenticatedRoutes(false);
    expect(routes.length).toBeGreaterThan(40);
    const answers = await Promise.all(routes.map(async (r) => [r.name, (await r.call(operator)).status] as const));
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(routes.map((r) => [r.name, 403])));
    const naming = new MerchantClient(t.baseUrl, { msn: '123456', ...testOperator });
    const named = await Promise.all(routes.map(async (r) => [r.name, (await r.call(naming)).status] as const));
    expect(Object.fromEntries(named)).toEqual(Object.fromEntries(routes.map((r) => [r.name, 403])));
    const res = await operator.request('GET', `/epayment/v1/payments/${owned.reference}`);
    expect(res.body.extraDetails[0]).toEqual(expect.objectContaining({ name: 'Authorization' }));
  });

  test('the operator is refused on every probed field of the graph, before any resolver runs', async () => {
    const answers = await Promise.all([
      // A graph probe uses only `graphql`, which every principal's client has.
      ...probes(graphMatrix).map(([, probe]) => probe(operator as unknown as MerchantClient, owned)),
      operator.graphql('{ __typename }'),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
  });

  // issue 35: a wallet app's credential covers no sales unit either; its fields are its own.
  test('the wallet client is refused (403, the credential named) on every route of every bearer interface, with or without an MSN', async () => {
    const wallet = new WalletClient(t.baseUrl);
    const routes = authenticatedRoutes(false);
    expect(routes.length).toBeGreaterThan(40);
    const answers = await Promise.all(routes.map(async (r) => [r.name, (await r.call(wallet)).status] as const));
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(routes.map((r) => [r.name, 403])));
    const naming = new MerchantClient(t.baseUrl, { msn: '123456', ...testWalletClient });
    const named = await Promise.all(routes.map(async (r) => [r.name, (await r.call(naming)).status] as const));
    expect(Object.fromEntries(named)).toEqual(Object.fromEntries(routes.map((r) => [r.name, 403])));
  });

  test('the wallet client is refused on every probed field of the graph and every operator mutation, before any resolver runs', async () => {
    const wallet = new WalletClient(t.baseUrl);
    const answers = await Promise.all([
      ...probes(graphMatrix).map(([, probe]) => probe(wallet as unknown as MerchantClient, owned)),
      ...Object.values(operatorMutations).map(({ query, variables }) => wallet.graphql(query, variables)),
      wallet.graphql('{ __typename }'),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
  });

  test.each([
    ['merchant A', () => owner],
    ['a partner acting for a connected sales unit', () => partnerOfA],
    ['a PSP', () => psp],
    ['the operator', () => operator as unknown as MerchantClient],
  ])('%s is refused every wallet field (403), over HTTP', async (_, client) => {
    for (const [name, { query, variables }] of Object.entries(walletFields)) {
      const res = await client().graphql(query, variables);
      expect({ name, status: res.status, code: res.body.errors?.[0]?.extensions?.code, data: res.body.data }).toEqual({
        name,
        status: 403,
        code: 'FORBIDDEN',
        data: undefined,
      });
    }
  });

  test("the wallet client's answers carry none of the merchant's identifiers: no reference, MSN, payment or merchant id", async () => {
    const reference = newReference('tenant-wallet');
    const created = await owner.createPayment({ reference, customer: { phoneNumber: '4791234567' } });
    const token = new URL(created.body.redirectUrl).searchParams.get('token')!;
    const wallet = new WalletClient(t.baseUrl);
    const shown = await wallet.graphql(
      'query($t: String!, $p: String!) { walletPayment(token: $t) { token shopName amount { value } description state awaitsUser expiresAt requestedScopes customerPhoneNumber } walletPendingPayments(phoneNumber: $p) { edges { node { token shopName } } } }',
      { t: token, p: '4791234567' },
    );
    expect(shown.status).toBe(200);
    expect(shown.body.data.walletPayment.shopName).toBe('Test Shop Online');
    const { body } = await owner.graphql('query($r: String!) { payment(reference: $r) { id } }', { r: reference });
    const ids = [reference, '123456', body.data.payment.id, fromGlobalId(body.data.payment.id)!.key, owned.reference];
    expect(shown.text).not.toContain(reference);
    for (const identifier of ids) {
      // As a whole JSON value ("123456" is inside the user's own phone number 4791234567).
      expect(shown.text).not.toContain(JSON.stringify(identifier));
    }
  });

  test('the root-field rule: the operator is refused every other root field, every other principal every operator field', () => {
    const schema = buildSchema(modules.flatMap((m) => m.resolvers ?? []));
    const operationOf = (type: string, field: string): OperationDefinitionNode =>
      ({
        kind: Kind.OPERATION_DEFINITION,
        operation: type === 'Query' ? 'query' : type === 'Mutation' ? 'mutation' : 'subscription',
        selectionSet: { kind: Kind.SELECTION_SET, selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: field } }] },
      }) as OperationDefinitionNode;
    const operatorFields = new Set(Object.keys(operatorMutations).map((name) => `Mutation.${name}`));
    const ownFields = new Set(Object.keys(walletFields));
    const principals: Principal[] = [
      { kind: 'wallet', clientId: 'test-client-wallet' },
      { kind: 'operator', clientId: 'test-client-operator' },
      { kind: 'merchant', clientId: 'm', merchantId: 'x' },
      { kind: 'partner', clientId: 'p', partnerId: '100200' },
      { kind: 'psp', clientId: 's', pspId: 'y' },
    ];
    for (const rootField of rootFields()) {
      const [type, field] = rootField.split('.') as [string, string];
      for (const principal of principals) {
        const refused = refusedRootFields(schema, principal, operationOf(type, field)).length > 0;
        if (principal.kind === 'wallet') expect({ rootField, refused }).toEqual({ rootField, refused: !ownFields.has(rootField) });
        else if (ownFields.has(rootField))
          expect({ rootField, kind: principal.kind, refused }).toEqual({ rootField, kind: principal.kind, refused: true });
        if (principal.kind === 'operator') expect({ rootField, refused }).toEqual({ rootField, refused: !operatorFields.has(rootField) });
        else if (operatorFields.has(rootField))
          expect({ rootField, kind: principal.kind, refused }).toEqual({ rootField, kind: principal.kind, refused: true });
      }
    }
  });

  test.each([
    ['merchant A', () => owner],
    ['a partner acting for a connected sales unit', () => partnerOfA],
    ['a PSP', () => psp],
  ])('%s is refused every operator mutation (403), over HTTP', async (_, client) => {
    for (const [name, { query, variables }] of Object.entries(operatorMutations)) {
      const res = await client().graphql(query, variables);
      expect({ name, status: res.status, code: res.body.errors?.[0]?.extensions?.code, data: res.body.data }).toEqual({
        name,
        status: 403,
        code: 'FORBIDDEN',
        data: undefined,
      });
    }
  });

  test("the payments connection never lists another merchant's payments", async () => {
    const res = await intruder.graphql('{ payments(first: 100) { edges { node { reference } } } }');
    expect(res.body.data.payments.edges.map((e: any) => e.node.reference)).not.toContain(owned.reference);
    // issue 22: nor does a search for its exact reference, any outcome, any amount, any age.
    const search = await intruder.graphql(
      'query($r: String!) { payments(filter: { referencePrefix: $r, amountFrom: 0 }) { edges { node { reference } } } }',
      {
        r: owned.reference,
      },
    );
    expect(search.body.data.payments.edges).toEqual([]);
  });

  test("a subscription to another merchant's reference is silent, exactly like one to a missing reference", async () => {
    const reference = newReference('tenant-ws');
    const notifications = 'subscription($r: String) { paymentEvents(reference: $r) { event { reference name } } }';
    const subscribe = async (client: MerchantClient, r?: string) => {
      const subscriber = new Subscriber<{ paymentEvents: { event: { reference: string; name: string } } }>(
        t.baseUrl,
        await connectionParamsOf(client),
      ).subscribe(notifications, r === undefined ? {} : { r });
      sockets.push(subscriber);
      return subscriber;
    };
    const before = t.app.services.events.subscriberCount;
    const watched = await subscribe(owner, reference);
    const foreign = await subscribe(intruder, reference);
    const absent = await subscribe(intruder, missing.reference);
    const ownEvents = await subscribe(intruder);
    const all = [watched, foreign, absent, ownEvents];
    // Both of the intruder's probes are accepted, as a subscription to a missing reference is: no error either way.
    await eventually(
      () => all.some((s) => s.failure !== undefined) || t.app.services.events.subscriberCount === before + all.length,
      'the subscriptions to register',
    );
    expect(all.map((s) => s.failure)).toEqual([undefined, undefined, undefined, undefined]);

    // Merchant A creates, authorizes and captures the payment; its own subscription sees all of it.
    await owner.authorizedPayment(1_000, { reference });
    expect((await owner.modify(reference, 'capture', 100)).status).toBe(200);
    await eventually(() => watched.results.some((r) => r.data.paymentEvents.event.name === 'CAPTURED'), 'the owner to see the capture');
    expect(watched.results.map((r) => r.data.paymentEvents.event.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
    // Events leave in commit order: once the intruder sees its own later event, A's events had their turn.
    const marker = newReference('tenant-marker');
    expect((await intruder.createPayment({ reference: marker })).status).toBe(201);
    await eventually(() => ownEvents.results.some((r) => r.data.paymentEvents.event.reference === marker), "the intruder's own event");

    expect(ownEvents.results.map((r) => r.data.paymentEvents.event.reference)).toEqual([marker]);
    expect({ results: foreign.results, failure: foreign.failure }).toEqual({ results: [], failure: undefined });
    expect({ results: absent.results, failure: absent.failure }).toEqual({ results: [], failure: undefined });
  });

  // issue 34: an Express payment's shipping and profile, on every face that shows them.
  test("an Express payment's shippingDetails and userDetails: another merchant sees the payment as missing on REST and the graph", async () => {
    const reference = newReference('tenant-express');
    const created = await owner.createPayment({
      reference,
      profile: { scope: 'name email phoneNumber address' },
      shipping: {
        fixedOptions: [
          { brand: 'POSTEN', type: 'HOME_DELIVERY', options: [{ id: 'home', name: 'Home', amount: { currency: 'NOK', value: 4_900 } }] },
        ],
      },
    });
    expect(created.status).toBe(201);
    const approved = await submitLandingForm(t.baseUrl, created.body.redirectUrl, {
      phoneNumber: '91234567',
      consent: 'yes',
      address: '0',
      shippingOptionId: 'home',
    });
    expect(approved.status).toBe(200);
    expect((await owner.getPayment(reference)).body.shippingDetails.shippingOptionId).toBe('home');

    const missingReference = newReference('tenant-express');
    for (const client of [intruder, partnerOfB]) {
      const foreign = await client.getPayment(reference);
      expect(observable(foreign, { ...owned, reference })).toEqual(
        observable(await client.getPayment(missingReference), { ...owned, reference: missingReference }),
      );
      expect(foreign.text).not.toContain('Kari');
      const query = 'query($r: String!) { payment(reference: $r) { shippingDetails { shippingOptionId } userDetails { firstName } } }';
      expect((await client.graphql(query, { r: reference })).body).toEqual({ data: { payment: null } });
    }
    // Another merchant's force approve of it is the missing payment's 404, not Express's 10020.
    expect((await intruder.forceApprove(reference)).status).toBe(404);
  });

  // issue 37: the HTTP subscription transports resume from a client-given event id (Last-Event-ID, after:). Another
  // merchant's event id is refused exactly as an id that is no event at all, on graphql-sse and on multipart.
  test("HTTP streams: another merchant's event id, as Last-Event-ID or after:, answers exactly like a missing one", async () => {
    const events = await owner.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
      r: owned.reference,
    });
    const ownedEventId: string = events.body.data.payment.events.edges[0].node.eventId;
    const missingEventId = '987654321';
    const query = 'subscription($after: ID) { paymentEvents(after: $after) { event { eventId reference } } }';
    const credentials = await connectionParamsOf(intruder);
    const ask = async (eventId: string, how: 'sse-header' | 'sse-after' | 'multipart-header' | 'multipart-after') => {
      const sse = how.startsWith('sse');
      const byHeader = how.endsWith('header');
      const res = await fetch(`${t.baseUrl}${sse ? '/graphql/stream' : '/graphql'}`, {
        method: 'POST',
        headers: {
          ...credentials,
          'content-type': 'application/json',
          accept: sse ? 'text/event-stream' : 'multipart/mixed;subscriptionSpec="1.0",application/json',
          ...(byHeader ? { 'last-event-id': eventId } : {}),
        },
        body: JSON.stringify({ query, variables: byHeader ? {} : { after: eventId } }),
      });
      // The refusal does not repeat the id asked about, so the answers compare as they are.
      return { status: res.status, text: await res.text() };
    };
    for (const how of ['sse-header', 'sse-after', 'multipart-header', 'multipart-after'] as const) {
      const foreign = await ask(ownedEventId, how);
      expect(foreign.text).toContain('BAD_USER_INPUT');
      expect(foreign).toEqual(await ask(missingEventId, how));
    }
  });

  test('nothing the intruder did changed the payment', async () => {
    const payment = (await owner.getPayment(owned.reference)).body;
    expect(payment.state).toBe('AUTHORIZED');
    expect(payment.aggregate.capturedAmount.value + payment.aggregate.refundedAmount.value + payment.aggregate.cancelledAmount.value).toBe(
      0,
    );
  });

  // issue 34: the refund triggers of the test environment answer only for the caller's own payments.
  test("a refund trigger amount on A's payment is a missing payment to B, on REST and the graph", async () => {
    const REFUND = `mutation($r: String!, $v: MinorUnits!) {
      refundPayment(input: { idempotencyKey: "t-trigger", reference: $r, amount: { value: $v, currency: NOK } }) {
        payment { reference } userErrors { code errorCode field }
      }
    }`;
    for (const value of [123, 124]) {
      const foreign = await intruder.modify(owned.reference, 'refund', value, `tenant-trigger-${value}`);
      const absent = await intruder.modify(missing.reference, 'refund', value, `tenant-trigger-${value}-b`);
      expect(observable(foreign, owned)).toEqual(observable(absent, missing));
      expect(foreign.status).toBe(404);
      const graphForeign = await intruder.graphql(REFUND, { r: owned.reference, v: value });
      const graphAbsent = await intruder.graphql(REFUND, { r: missing.reference, v: value });
      expect(graphForeign.body.data.refundPayment).toEqual(graphAbsent.body.data.refundPayment);
      expect(graphForeign.body.data.refundPayment.userErrors).toEqual([
        { code: 'PAYMENT_NOT_FOUND', errorCode: '5090', field: 'reference' },
      ]);
    }
  });

  // issue 11: checkout sessions
  test("checkout REST: merchant B's checkout credentials see A's session exactly as a missing one (404)", async () => {
    const intruderCheckout = new CheckoutClient(t.baseUrl, MERCHANT_B);
    const blank = (r: HttpResult, ids: Identifiers) => observable({ ...r, body: { ...r.body, instance: '<path>' } }, ids);
    // issue 19: the merchant's update and expiry too.
    const calls: ((ids: Identifiers) => Promise<HttpResult>)[] = [
      (ids) => intruderCheckout.getSession(ids.checkoutReference),
      (ids) =>
        intruderCheckout.raw('PATCH', `/checkout/v3/session/${ids.checkoutReference}`, { transaction: { paymentDescription: 'Changed' } }),
      (ids) => intruderCheckout.raw('POST', `/checkout/v3/session/${ids.checkoutReference}/expire`, '[]'),
    ];
    for (const call of calls) {
      const foreign = await call(owned);
      const absent = await call(missing);
      expect(blank(foreign, owned)).toEqual(blank(absent, missing));
      expect(foreign.status).toBe(404);
    }
    expect((await new CheckoutClient(t.baseUrl).getSession(owned.checkoutReference)).body.sessionState).toBe('SessionCreated');
  });

  test('checkout REST: a partner’s, PSP’s or the operator’s client credentials are refused (401): only a merchant’s client may use checkout', async () => {
    for (const credentials of [partnerFor('123456'), PSP, { msn: '123456', ...testOperator }]) {
      const res = await new CheckoutClient(t.baseUrl, credentials).getSession(owned.checkoutReference);
      expect(res.status).toBe(401);
      expect(res.body.errors).toBeDefined();
    }
  });

  test("the checkout sessions connection never lists another merchant's sessions", async () => {
    const res = await intruder.graphql('{ checkoutSessions(first: 100) { edges { node { reference } } } }');
    expect(res.body.data.checkoutSessions.edges.map((e: any) => e.node.reference)).not.toContain(owned.checkoutReference);
  });
});

// issue 10: PSP payments, PSP against PSP. The second PSP acts for its own sales unit; the test PSP's payment is
// as missing to it as one that does not exist, on every PSP route and field, and it cannot name the other's MSN.
describe('tenant isolation between PSPs', () => {
  let first: PspClient;
  let second: PspClient;
  let pspTransactionId: string;
  let token: string;
  const mine = { 'Merchant-Serial-Number': PSP_MSN };
  const theirs = { 'Merchant-Serial-Number': SECOND_PSP_MSN };

  beforeAll(async () => {
    first = new PspClient(t.baseUrl);
    second = await createSecondPsp(t);
    const ids = newIds();
    const res = await first.request(
      'POST',
      '/psp/v3/psppayments/init',
      { ...ids, amount: 1000, currency: 'NOK', pspRedirectUrl: 'https://psp.example/r', makePaymentUrl: 'http://127.0.0.1:9/cb' },
      mine,
    );
    expect(res.status).toBe(200);
    pspTransactionId = ids.pspTransactionId;
    token = new URL(res.body.vippsRedirectUrl).searchParams.get('token')!;
  });

  const pspProbes: [string, (c: PspClient, id: string) => Promise<HttpResult>][] = [
    ['GET details', (c, id) => c.request('GET', `/psp/v3/psppayments/${id}/details`, undefined, theirs)],
    [
      'POST approve',
      (c, id) =>
        c.request('POST', `/psp/v3/integration-test/psppayments/${id}/approve`, { customerPhoneNumber: '91234567', token: 'x' }, theirs),
    ],
    [
      'POST updatestatus',
      (c, id) =>
        c.request(
          'POST',
          '/psp/v3/psppayments/updatestatus',
          { transactions: [{ pspTransactionId: id, status: 'CAPTURED', amount: 1 }] },
          theirs,
        ),
    ],
    ['graph pspPayment', (c, id) => c.graphql('query($id: String!) { pspPayment(pspTransactionId: $id) { state } }', { id }, theirs)],
    [
      'graph updatePspStatus',
      (c, id) =>
        c.graphql(
          'mutation($id: String!) { updatePspStatus(input: { transactions: [{ pspTransactionId: $id, status: "CAPTURED", amount: 1 }] }) { queued userErrors { code field } } }',
          { id },
          theirs,
        ),
    ],
  ];

  const seen = (result: HttpResult, id: string) =>
    JSON.stringify({ status: result.status, body: result.body })
      .split(id)
      .join('<id>')
      .replace(/"contextId":"[^"]+"/g, '"contextId":"<trace>"');

  test.each(pspProbes)("%s: another PSP's transaction answers exactly like a missing one", async (_, probe) => {
    const missingId = newIds().pspTransactionId;
    expect(seen(await probe(second, pspTransactionId), pspTransactionId)).toEqual(seen(await probe(second, missingId), missingId));
  });

  const signupProbes: [string, (c: PspClient, msn: string) => Promise<HttpResult>][] = [
    ['GET signup merchant', (c, msn) => c.request('GET', `/merchant-management/psp/v1/merchants/${msn}`)],
    ['PATCH signup merchant', (c, msn) => c.request('PATCH', `/merchant-management/psp/v1/merchants/${msn}`, { name: 'x' })],
    [
      'graph updatePspMerchant',
      (c, msn) =>
        c.graphql(
          'mutation($msn: String!) { updatePspMerchant(input: { merchantSerialNumber: $msn, name: "x" }) { userErrors { code } } }',
          { msn },
          theirs,
        ),
    ],
  ];

  test.each(signupProbes)("%s: another PSP's signed-up merchant answers exactly like a missing one", async (_, probe) => {
    const signedUp = await first.request(
      'POST',
      '/merchant-management/psp/v1/merchants',
      {
        organizationNumber: '920000037',
        name: 'Ny Kafé',
        mccCode: '5812',
        logo: pngImage(120, 120).toString('base64'),
        address: { addressLine1: 'Gata 2', city: 'Bergen', postCode: '5003', country: 'NO' },
        companyName: 'Ny Kafé AS',
        companyEmail: 'post@nykafe.no',
      },
      { 'Idempotency-Key': randomUUID() },
    );
    const msn = signedUp.body.merchantSerialNumber as string;
    const missingMsn = '999991';
    const answer = (result: HttpResult, id: string) =>
      JSON.stringify({ status: result.status, body: result.body })
        .split(id)
        .join('<msn>')
        .replace(/"instance":"[^"]+"/g, '"instance":"<path>"');
    expect(answer(await probe(second, msn), msn)).toEqual(answer(await probe(second, missingMsn), missingMsn));
    expect((await first.request('GET', `/merchant-management/psp/v1/merchants/${msn}`)).body.name).toBe('Ny Kafé');
  });

  test("another PSP cannot name this PSP's sales unit (403), on REST and on the graph", async () => {
    expect((await second.request('GET', `/psp/v3/psppayments/${pspTransactionId}/details`, undefined, mine)).status).toBe(403);
    expect((await second.graphql('{ pspPayments { edges { node { id } } } }', {}, mine)).status).toBe(403);
    // The scope comes before the body: an empty body naming another PSP's unit is that 403, not a 400.
    expect((await second.request('POST', '/psp/v3/psppayments/init', {}, mine)).status).toBe(403);
  });

  test("the payment's own PSP still sees it untouched", async () => {
    const res = await first.request('GET', `/psp/v3/psppayments/${pspTransactionId}/details`, undefined, mine);
    expect(res.status).toBe(200);
    expect(res.body.transactionLogHistory).toEqual([]);
    expect(token).toBeTruthy();
  });

  test("a PSP's socket is served its own subscription only: merchant subscriptions are refused", async () => {
    const params = await connectionParamsOf(first as unknown as MerchantClient);
    const refusedSub = new Subscriber(t.baseUrl, { ...params, ...mine }).subscribe(
      'subscription { paymentEvents { event { reference } } }',
    );
    sockets.push(refusedSub);
    await eventually(() => refusedSub.failure !== undefined, 'the refusal');
    expect(JSON.stringify(refusedSub.failure)).toMatch(/FORBIDDEN/);
  });
});

// issue 19 point 2: one request front, credentials first. Every route that takes credentials, generated from the
// router, answers a request without any with a 401 in its interface's error format, however bad the rest of it is.
describe('credentials before anything else, on every route', () => {
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
  /** What the front refuses a request without credentials with, by how the route authenticates. */
  async function refusalWithout(method: 'bearer' | 'clientCredentials'): Promise<AppError> {
    const none = headerLookup({});
    const refusal =
      method === 'bearer'
        ? await Promise.resolve()
            .then(() => authenticateBearer(t.app.services, none))
            .catch((e: unknown) => e)
        : await authenticateCheckoutClient(t.app.services, forkEm(t.app.services.orm), none, '127.0.0.1').catch((e: unknown) => e);
    if (!(refusal instanceof AppError)) throw new Error('expected the front to refuse');
    return refusal;
  }

  function credentialedRoutes() {
    return t.app.router.declaredInterfaces.flatMap((restInterface) =>
      restInterface.routes.flatMap((route) => (route.auth === 'public' ? [] : [{ restInterface, route, auth: route.auth }])),
    );
  }

  test('the routes of every interface that authenticates are walked (pages and token endpoints aside)', () => {
    const prefixes = new Set(credentialedRoutes().map((r) => r.restInterface.prefix));
    expect([...prefixes].sort()).toEqual(
      [
        '/checkout/v3',
        '/epayment/v1',
        '/management/v1',
        '/merchant-management/psp/v1',
        '/order-management',
        '/partner-api',
        '/psp/v3',
        '/qr',
        '/report/v1',
        '/settlement/v1',
        '/vipps-userinfo-api',
        '/webhooks/v1',
      ].sort(),
    );
  });

  test('without credentials, every such route is a 401 naming the credential, in its interface’s format, before any 400', async () => {
    const answers = await Promise.all(
      credentialedRoutes().map(async ({ restInterface, route, auth }) => {
        // Every parameter, header and the body are wrong as well: none of them may be reported first.
        const path = route.pattern.replace(/\{\w+\}/g, '%21bad%21');
        const res = await owner.raw(route.method, path, route.method === 'GET' ? undefined : '{"not json', {
          'Content-Type': 'application/json',
          'Merchant-Serial-Number': 'not-an-msn',
          'Idempotency-Key': 'k'.repeat(80),
          'Svc-System-Name': 's'.repeat(200),
          'Psp-Id': 'not-a-uuid',
        });
        const expected = restInterface.errorFormat.render(await refusalWithout(auth.method), {
          method: route.method,
          path,
          query: new URLSearchParams(),
          headers: {},
          params: {},
          rawBody: Buffer.alloc(0),
          traceId: randomUUID(),
        } as HttpRequest);
        const blank = (body: unknown) =>
          JSON.stringify(body)
            .replace(UUID, '<uuid>')
            .replace(/"instance":"[^"]*"/, '"instance":"<path>"');
        return {
          route: `${route.method} ${route.pattern}`,
          status: res.status,
          contentType: res.headers.get('content-type')?.split(';')[0],
          body: blank(res.body),
          expected: { status: expected.status, contentType: expected.headers?.['content-type']?.split(';')[0], body: blank(expected.body) },
        };
      }),
    );
    expect(answers.length).toBeGreaterThan(40);
    for (const { route, status, contentType, body, expected } of answers) {
      expect({ route, status, contentType, body }).toEqual({ route, ...expected });
      expect({ route, status }).toEqual({ route, status: 401 });
    }
  });

  test('the graph: without credentials a 401 naming the token, not the Merchant-Serial-Number', async () => {
    const res = await owner.raw(
      'POST',
      '/graphql',
      { query: '{ payments(first: 1) { edges { cursor } } }' },
      {
        'Content-Type': 'application/json',
        'Merchant-Serial-Number': 'not-an-msn',
      },
    );
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors[0].extensions.details.map((d: { name: string }) => d.name)).toEqual(['Authorization']);
  });

  test('the graph asks for the MSN only where a field needs one sales unit', async () => {
    const headers = withoutHeader(await partnerOfA.headers(), 'Merchant-Serial-Number');
    const principalWide = await partnerOfA.raw('POST', '/graphql', { query: '{ viewer { kind partner { partnerId } } }' }, headers);
    expect(principalWide.status).toBe(200);
    expect(principalWide.body).toEqual({ data: { viewer: { kind: 'PARTNER', partner: { partnerId: '100200' } } } });
    const oneUnit = await partnerOfA.raw('POST', '/graphql', { query: '{ payments(first: 1) { edges { cursor } } }' }, headers);
    expect(oneUnit.body.data).toBeNull();
    expect(oneUnit.body.errors[0].extensions.details).toEqual([expect.objectContaining({ name: 'Merchant-Serial-Number' })]);
  });
});

// issue 20 points 4 and 5: lists and single reads of merchant data answer from one coverage rule, and the MSN a
// partner acts for narrows the graph as it narrows REST.
describe('merchant data: lists and single reads agree, on both faces', () => {
  const B_ORGNO = '920000010';
  const MERCHANTS = '{ viewer { merchants(first: 50) { edges { node { orgno name status salesUnits { edges { node { msn } } } } } } } }';
  const orgnosOf = (res: HttpResult) => res.body.data.viewer.merchants.edges.map((e: { node: { orgno: string } }) => e.node.orgno);

  test.each([
    ['acting for B’s unit', () => partnerOfB],
    ['acting for A’s unit', () => partnerOfA],
    ['naming no unit', () => partnerOfA],
  ])('a partner %s: B has not consented, so B is neither read nor listed', async (name, client) => {
    const partner = client();
    const named = await partner.headers(SYSTEM);
    const headers = name === 'naming no unit' ? withoutHeader(named, 'Merchant-Serial-Number') : named;
    const single = await partner.raw('GET', `/management/v1/merchants/${B_ORGNO}`, undefined, headers);
    const list = await partner.raw('GET', '/management/v1/merchants', undefined, headers);
    const graph = await partner.raw('POST', '/graphql', { query: MERCHANTS }, { ...headers, 'Content-Type': 'application/json' });
    expect(single.status).toBe(name === 'naming no unit' ? 400 : name === 'acting for B’s unit' ? 403 : 404);
    expect(list.status).toBe(200);
    expect(list.body.MerchantList.map((m: { orgno: string }) => m.orgno)).not.toContain(B_ORGNO);
    expect(graph.body.errors).toBeUndefined();
    expect(orgnosOf(graph)).not.toContain(B_ORGNO);
    expect(JSON.stringify(graph.body)).not.toContain('Prøvehandel');
  });

  test('once B consents, its single read and both lists show it; withdrawn, none does', async () => {
    const consent = (verb: 'give' | 'withdraw') =>
      intruder.graphql(`mutation { ${verb}MerchantConsent(input: { partnerId: "100200" }) { userErrors { code } } }`);
    await consent('give');
    try {
      expect((await partnerOfB.request('GET', `/management/v1/merchants/${B_ORGNO}`, undefined, SYSTEM)).status).toBe(200);
      expect(
        (await partnerOfB.request('GET', '/management/v1/merchants', undefined, SYSTEM)).body.MerchantList.map(
          (m: { orgno: string }) => m.orgno,
        ),
      ).toEqual([B_ORGNO]);
      expect(orgnosOf(await partnerOfB.graphql(MERCHANTS))).toEqual([B_ORGNO]);
    } finally {
      await consent('withdraw');
    }
    expect((await partnerOfB.request('GET', `/management/v1/merchants/${B_ORGNO}`, undefined, SYSTEM)).status).toBe(403);
    expect(orgnosOf(await partnerOfB.graphql(MERCHANTS))).toEqual([]);
  });

  test('acting for B’s unit, the partner reaches none of A’s units or payments in the graph, as REST answers 404', async () => {
    expect((await partnerOfB.getPayment(owned.reference)).status).toBe(404);
    expect((await partnerOfB.request('GET', '/management/v1/sales-units/123456', undefined, SYSTEM)).status).toBe(404);
    const unitId = toGlobalId('SalesUnit', '123456');
    const node = await partnerOfB.graphql(
      'query($id: ID!) { node(id: $id) { ... on SalesUnit { msn payments(first: 5) { edges { node { reference } } } } } }',
      {
        id: unitId,
      },
    );
    expect(node.body.errors).toBeUndefined();
    expect(node.body.data.node).toBeNull();
    const all = await partnerOfB.graphql(
      MERCHANTS.replace(
        'salesUnits { edges { node { msn } } }',
        'salesUnits { edges { node { msn payments(first: 5) { edges { node { reference } } } } } }',
      ),
    );
    expect(JSON.stringify(all.body)).not.toContain('123456');
    expect(JSON.stringify(all.body)).not.toContain(owned.reference);
    // Acting for A's unit, the same partner reads it: the narrowing is the MSN's, not a refusal of the partner.
    const asA = await partnerOfA.graphql('query($id: ID!) { node(id: $id) { ... on SalesUnit { msn } } }', { id: unitId });
    expect(asA.body.data.node).toEqual({ msn: '123456' });
  });
});

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
}

// issue 20 point 7: a test clock per sales unit. Last in the file: it moves merchant B's unit two days on.
describe('test clocks: one per sales unit', () => {
  const ADVANCE = `mutation($input: AdvanceTestClockInput!) {
    advanceTestClock(input: $input) { testClock { merchantSerialNumber now } userErrors { code } }
  }`;
  const unitNow = async (client: MerchantClient) => {
    const res = await client.graphql('{ testClock { merchantSerialNumber now } }');
    expect(res.body.errors).toBeUndefined();
    return res.body.data.testClock as { merchantSerialNumber: string; now: string };
  };

  test("B's advance leaves A's payments, A's clock and every token as they were; B's own open payment expires", async () => {
    // Both clients hold their token from before the advance and never fetch another.
    const a = new MerchantClient(t.baseUrl);
    const b = new MerchantClient(t.baseUrl, MERCHANT_B);
    const aOpen = (await a.createPayment()).body.reference as string;
    const bOpen = (await b.createPayment()).body.reference as string;
    const aBefore = await unitNow(a);
    const bBefore = await unitNow(b);

    const moved = await b.graphql(ADVANCE, { input: { seconds: 2 * 86_400 } });
    expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
    expect(moved.body.data.advanceTestClock.testClock.merchantSerialNumber).toBe(MERCHANT_B.msn);
    expect(Date.parse(moved.body.data.advanceTestClock.testClock.now) - Date.parse(bBefore.now)).toBe(2 * 86_400_000);

    // A: same time, same open payment, same token (a 200, not a 401), on REST and on the graph.
    expect(await unitNow(a)).toEqual(aBefore);
    const aPayment = await a.getPayment(aOpen);
    expect([aPayment.status, aPayment.body.state]).toEqual([200, 'CREATED']);
    expect((await a.events(aOpen)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED']);
    // The probes' clients of the whole file, tokens fetched long before, still answer.
    expect((await owner.getPayment(owned.reference)).status).toBe(200);
    expect((await partnerOfA.getPayment(owned.reference)).status).toBe(200);
    // B: its own payment expired with its clock, and B's token, from before its own advance, still works.
    const bPayment = await b.getPayment(bOpen);
    expect([bPayment.status, bPayment.body.state]).toEqual([200, 'EXPIRED']);
  });

  test("each sales unit in the graph shows its own time: A's unit A's, B's unit B's (what the dashboard shows)", async () => {
    const query = `{ viewer { merchants { edges { node { salesUnits { edges { node { msn clock { merchantSerialNumber now } } } } } } } } }`;
    const clocks = async (client: MerchantClient) => {
      const res = await client.graphql(query);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.viewer.merchants.edges.flatMap((m: any) => m.node.salesUnits.edges.map((u: any) => u.node));
    };
    const a = (await clocks(owner)).find((unit: { msn: string }) => unit.msn === '123456');
    const b = (await clocks(intruder)).find((unit: { msn: string }) => unit.msn === MERCHANT_B.msn);
    expect(a.clock).toEqual(await unitNow(owner));
    expect(b.clock).toEqual(await unitNow(intruder));
    expect(Date.parse(b.clock.now) - Date.parse(a.clock.now)).toBe(2 * 86_400_000);
  });

  test('a partner moves the clock of a unit it may act for, and is refused for one it may not (403), which stays', async () => {
    const before = await unitNow(new MerchantClient(t.baseUrl, { ...PSP }));
    const refused = await partnerUnconnected.graphql(ADVANCE, { input: { seconds: 60 } });
    expect(refused.status).toBe(403);
    expect(await unitNow(new MerchantClient(t.baseUrl, { ...PSP }))).toEqual(before);

    const partnerOfAClock = await unitNow(partnerOfA);
    expect(partnerOfAClock.merchantSerialNumber).toBe('123456');
    const moved = await partnerOfA.graphql(ADVANCE, { input: { seconds: 60 } });
    expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
    expect(moved.body.data.advanceTestClock.testClock.merchantSerialNumber).toBe('123456');
    expect(Date.parse((await unitNow(owner)).now) - Date.parse(partnerOfAClock.now)).toBe(60_000);
  });
});
