import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_A } from '../support/merchant-client.js';
import { float, outcome, phpJsonEncode, sendAsPhp, type PhpValue, type WireAnswer } from '../support/php-client.js';

/**
 * The Magento 2 modules replayed against the app, each request as the module's code builds it:
 * - vippsas/vipps-magento (vipps/module-payment 3.0.3): GatewayEpayment/Http/Client/PaymentCurl.php sends every
 *   ePayment and order management request; Model/TokenProvider.php the token; bodies are the allowedBodyKeys of
 *   etc/di.xml's TransferFactory for each command, in that order;
 * - vippsas/vipps-checkout-magento (vipps/module-checkout 1.1.0): Gateway/Http/Client/CheckoutCurl.php sends the
 *   checkout session requests.
 * Both send through Magento's curl adapter with Magento\Framework\Json\Encoder (json_encode), for a store at
 * https://magento.example.com. curl drops a header whose value is empty, so the modules' empty defaults
 * (`X-Source-Address`, `X-TimeStamp`, checkout's `Idempotency-Key`) never reach the wire.
 */
const fixture = useTestApp();

const STORE = 'https://magento.example.com';
const MAGENTO: [string, string][] = [
  ['Vipps-System-Name', 'Magento 2 Community'], // ModuleMetadata::getSystemName: sprintf('%s 2 %s', name, edition)
  ['Vipps-System-Version', '2.4.7'],
];

/** curl's request: Host and `Accept: *\/*` first, the module's headers without the empty ones, Content-Length. */
function curl(method: string, path: string, headers: [string, string][], body?: string): Promise<WireAnswer> {
  const sent: [string, string][] = [['Accept', '*/*'], ...headers.filter(([, value]) => value !== '')];
  return sendAsPhp(fixture.baseUrl, method, path, sent, body);
}

let accessToken = '';

/** TokenProvider::readJwt (both modules): the credentials as headers, an empty body declared as JSON. */
function requestToken(): Promise<WireAnswer> {
  return curl(
    'POST',
    '/accessToken/get',
    [
      ['Client_Id', MERCHANT_A.clientId],
      ['Client_Secret', MERCHANT_A.clientSecret],
      ['Ocp-Apim-Subscription-Key', MERCHANT_A.subscriptionKey],
      ['Content-Type', 'application/json'],
      ['Content-Length', '0'],
    ],
    '',
  );
}

/**
 * PaymentCurl::place with PaymentCurl::getHeaders: the defaults merged with the transfer's Idempotency-Key (which
 * TransferFactory::create makes with uniqid('req-id-', true)), then ModuleMetadata::addOptionalHeaders.
 * GET sends no body; the others json_encode the transfer's body.
 */
let uniqid = 0;
function paymentCurl(method: string, path: string, body?: { [key: string]: PhpValue }): Promise<WireAnswer> {
  uniqid += 1;
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['Authorization', `Bearer ${accessToken}`],
    ['Idempotency-Key', `req-id-6565f0c1a2b3${uniqid.toString(16).padStart(2, '0')}.${String(uniqid).padStart(8, '0')}`],
    ['X-Source-Address', ''],
    ['X-TimeStamp', ''],
    ['Merchant-Serial-Number', MERCHANT_A.msn],
    ['Ocp-Apim-Subscription-Key', MERCHANT_A.subscriptionKey],
    ...MAGENTO,
    ['Vipps-System-Plugin-Name', 'vipps-magento'],
    ['Vipps-System-Plugin-Version', '3.0.3'],
  ];
  return curl(method, path, headers, method === 'GET' ? undefined : phpJsonEncode(body ?? {}));
}

const GRAND_TOTAL = 54800; // 499.00 and shipping 49.00, in øre: `$quote->getGrandTotal() * 100`, a PHP float

/** Request/Payment/AmountBuilder, filtered by VippsEpaymentPostTransferFty's allowedBodyKeys (in their order). */
function createPayment(reference: string): Promise<WireAnswer> {
  return paymentCurl('POST', '/epayment/v1/payments', {
    amount: { currency: 'NOK', value: float(GRAND_TOTAL) },
    paymentMethod: { type: 'WALLET' },
    reference,
    returnUrl: `${STORE}/vipps/payment/fallback/reference/${reference}/`,
    userFlow: 'WEB_REDIRECT',
    paymentDescription: `Thank you for shopping at Main Website Store. Order Id: ${reference}`,
  });
}

test('the token: Client_Id, Client_Secret and the subscription key as headers; every field TokenProvider::isJwtValid needs', async () => {
  const token = await requestToken();
  expect(outcome(token)).toBe('200');
  for (const key of ['token_type', 'expires_in', 'ext_expires_in', 'not_before', 'resource', 'access_token']) {
    expect(token.json).toHaveProperty(key);
  }
  accessToken = token.json.access_token;
});

test('an order (vipps-magento): created, polled, authorized, captured, refunded, its receipt sent, its event log read', async () => {
  const reference = '000000012'; // the quote's reserved order id (an increment id)
  const created = await createPayment(reference);
  expect(outcome(created)).toBe('201');
  expect(created.json).toEqual(expect.objectContaining({ reference, redirectUrl: expect.any(String) }));

  // VippsEpaymentGetPaymentTransferFty: GET /epayment/v1/payments/:reference.
  const polled = await paymentCurl('GET', `/epayment/v1/payments/${reference}`);
  expect(outcome(polled)).toBe('200');
  expect(polled.json.state).toBe('CREATED');

  // The test user approving in the app (not the module).
  expect(outcome(await fixture.merchant.forceApprove(reference))).toBe('200');
  expect((await paymentCurl('GET', `/epayment/v1/payments/${reference}`)).json.state).toBe('AUTHORIZED');

  // Request/ModificationDataBuilder: value `$amount * 100` (a float), modificationReference the increment id.
  const captured = await paymentCurl('POST', `/epayment/v1/payments/${reference}/capture`, {
    modificationAmount: { currency: 'NOK', value: float(GRAND_TOTAL) },
    modificationReference: reference,
  });
  expect(outcome(captured)).toBe('200');

  const refunded = await paymentCurl('POST', `/epayment/v1/payments/${reference}/refund`, {
    modificationAmount: { currency: 'NOK', value: float(10000) },
    modificationReference: reference,
  });
  expect(outcome(refunded)).toBe('200');

  // VippsEpaymentSendReceiptCommand: Request/SendReceipt/OrderLinesBuilder (int amounts, taxPercentage, quantity as
  // Magento stores it, a shipping line without unitInfo) and BottomLineBuilder (terminalId null).
  const receipt = await paymentCurl('POST', `/order-management/v2/ecom/receipts/${reference}`, {
    orderLines: [
      {
        name: 'Ullsokker',
        id: 'WS-ULL-42',
        totalAmount: 49900,
        totalAmountExcludingTax: 39920,
        totalTaxAmount: 9980,
        taxPercentage: 25,
        unitInfo: { unitPrice: 39920, quantity: '1.0000' },
        discount: 0,
        productUrl: `${STORE}/ullsokker.html`,
        isReturn: false,
        isShipping: false,
      },
      {
        name: 'Flat Rate - Fixed',
        id: 'shipping',
        totalAmount: 4900,
        totalAmountExcludingTax: 3920,
        totalTaxAmount: 980,
        taxPercentage: 25,
        discount: 0,
        isReturn: false,
        isShipping: true,
      },
    ],
    bottomLine: { currency: 'NOK', tipAmount: 0, giftCardAmount: 0, terminalId: null },
  });
  expect(outcome(receipt)).toMatch(/^2\d\d$/);

  // VippsEpaymentGetPaymentEventLogTransferFty.
  const events = await paymentCurl('GET', `/epayment/v1/payments/${reference}/events`);
  expect(outcome(events)).toBe('200');
  expect(events.json.map((event: { name: string }) => event.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED', 'REFUNDED']);
});

test('two orders cancelled, each with its own generated Idempotency-Key and only a modificationReference', async () => {
  for (const reference of ['000000013', '000000014']) {
    expect(outcome(await createPayment(reference))).toBe('201');
    // VippsEpaymentCancelTransferFty's allowedBodyKeys: modificationReference (no amount on a cancel).
    const cancelled = await paymentCurl('POST', `/epayment/v1/payments/${reference}/cancel`, { modificationReference: reference });
    expect({ reference, outcome: outcome(cancelled) }).toEqual({ reference, outcome: '200' });
    expect((await paymentCurl('GET', `/epayment/v1/payments/${reference}`)).json.state).toBe('TERMINATED');
  }
});

test('a checkout session (vipps-checkout-magento): created with client credentials and no token, then read', async () => {
  const reference = '000000015';
  // CheckoutCurl::getHeaders: its defaults only (the transfer's own headers are not merged in), no Authorization.
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['Idempotency-Key', ''],
    ['X-Source-Address', ''],
    ['X-TimeStamp', ''],
    ['Merchant-Serial-Number', MERCHANT_A.msn],
    ['Client_Id', MERCHANT_A.clientId],
    ['Client_Secret', MERCHANT_A.clientSecret],
    ['Ocp-Apim-Subscription-Key', MERCHANT_A.subscriptionKey],
    ...MAGENTO,
    ['Vipps-System-Plugin-Name', 'vipps-checkout-magento'],
    ['Vipps-System-Plugin-Version', '1.1.0'],
  ];
  // The InitSession builders (MerchantDataBuilder, TransactionDataBuilder, LogisticsDataBuilder,
  // ConfigurationDataBuilder) filtered by VippsCheckoutInitSessionTransferFty's allowedBodyKeys: `elements` and
  // `countries` fall out, a top-level `customerInteraction` stays; a guest has no prefillCustomer.
  const body = phpJsonEncode({
    merchantInfo: {
      callbackUrl: `${STORE}/checkout/vipps/callback`,
      returnUrl: `${STORE}/checkout/vipps/fallback/reference/${reference}/`,
      callbackAuthorizationToken: '6565f0c1a2b3c4.56789012', // uniqid('', true)
      termsAndConditionsUrl: `${STORE}/`,
    },
    transaction: {
      amount: { currency: 'NOK', value: float(49900) }, // (grand total - shipping) * 100
      reference,
      paymentDescription: `Order ID: ${reference}`,
    },
    logistics: { dynamicOptionsCallback: `${STORE}/checkout/vipps/logistics/reference/${reference}/`, fixedOptions: [] },
    customerInteraction: 'CUSTOMER_NOT_PRESENT',
    configuration: { externalPaymentMethods: [] },
  });
  const created = await curl('POST', '/checkout/v3/session', headers, body);
  expect(outcome(created)).toMatch(/^2\d\d$/);
  expect(created.json).toEqual(expect.objectContaining({ token: expect.any(String), pollingUrl: expect.any(String) }));

  // VippsCheckoutGetSessionTransferFty: GET /checkout/v3/session/:reference.
  const session = await curl('GET', `/checkout/v3/session/${reference}`, headers);
  expect(outcome(session)).toBe('200');
  expect(session.json).toEqual(expect.objectContaining({ reference, sessionState: 'SessionCreated' }));
});
