import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_A } from '../support/merchant-client.js';
import { float, outcome, type PhpValue, type WireAnswer } from '../support/php-client.js';
import { ShopSite, verifyWebhook, WooPlugin } from './support/woocommerce-plugin.js';

/**
 * The WooCommerce plugin (vippsas/vipps-woocommerce, woo-vipps 6.0.5, tag v6.0.5) replayed against the app: every
 * request as payment/VippsApi.class.php builds it (http_call: json_encode of the data, the headers of get_headers()
 * plus `Connection`, `Content-length` and `Content-type`), for a shop at https://shop.example.com with order prefix
 * `woo-shop-`. The line cited above each request is the method of VippsApi.class.php that sends it.
 */
const fixture = useTestApp();

const SHOP = 'https://shop.example.com';
const plugin = new WooPlugin(() => fixture.baseUrl);
/** A merchant's site receiving the webhook at the URL the plugin registers (WC_Gateway_Vipps::webhook_callback_url). */
const shop = new ShopSite();
beforeAll(() => shop.start());
afterAll(() => shop.close());

/**
 * VippsApi::get_receipt_data for one product of 499.00 incl. 25 % VAT and flat-rate shipping of 62.50 incl. VAT:
 * amounts are PHP floats (round()), taxRate is the percentage times 100, and the shipping line is written into the
 * product line's array (`$orderline`, not `$shippingline`), so it keeps that line's `productUrl`.
 */
function receiptData(orderId: number): { orderLines: PhpValue[]; bottomLine: { [key: string]: PhpValue } } {
  const productUrl = `${SHOP}/product/ullsokker/`;
  return {
    orderLines: [
      {
        name: 'Ullsokker',
        id: '17',
        totalAmount: float(49900),
        totalAmountExcludingTax: float(39920),
        totalTaxAmount: float(9980),
        taxRate: float(2500),
        unitInfo: { unitPrice: float(49900), quantity: '1', quantityUnit: 'PCS' },
        discount: float(0),
        productUrl,
        isShipping: false,
      },
      {
        name: 'Flat rate',
        id: 'flat_rate:1',
        totalAmount: float(6250),
        totalAmountExcludingTax: float(5000),
        totalTaxAmount: float(1250),
        taxRate: float(2500),
        unitInfo: { unitPrice: float(6250), quantity: '1', quantityUnit: 'PCS' },
        discount: 0,
        productUrl,
        isShipping: true,
      },
    ],
    bottomLine: {
      tipAmount: float(0),
      giftCardAmount: float(0),
      terminalId: 'woocommerce',
      currency: 'NOK',
      receiptNumber: String(orderId),
    },
  };
}

const ORDER_TOTAL = 56150; // 499.00 + 62.50, in øre

interface WooOrder {
  id: number;
  key: string;
  reference: string;
}
const wooOrder = (id: number): WooOrder => ({ id, key: `wc_order_k${id}Xq7PzR2mT`, reference: `woo-shop-${id}` });

/** VippsApi::epayment_initiate_payment (normal checkout, or express: no phone, profile scope, -express plugin name). */
function initiatePayment(order: WooOrder, express = false): Promise<WireAnswer> {
  const customer: { [key: string]: PhpValue } = { customerInteraction: 'CUSTOMER_NOT_PRESENT' };
  if (!express) customer.phoneNumber = '4791234567'; // Vipps::normalizePhoneNumber('91234567', 'NO')
  const data: { [key: string]: PhpValue } = {
    reference: order.reference,
    userFlow: 'WEB_REDIRECT',
    paymentMethod: { type: 'WALLET' },
    amount: { currency: 'NOK', value: float(ORDER_TOTAL) },
    returnUrl: `${SHOP}/vipps-betaling/?t=${order.key}&id=${order.id}`,
    customer,
    metadata: { orderid: order.id },
  };
  if (express) data.profile = { scope: 'name email phoneNumber' };
  Object.assign(data, {
    minimumUserAge: null,
    paymentDescription: `Confirm your order from ${SHOP}`,
    receipt: receiptData(order.id),
  });
  const headers = plugin.headers(express ? 'woo-vipps-express' : 'woo-vipps');
  return plugin.httpCall('POST', 'epayment/v1/payments', [...headers, ['Idempotency-Key', order.key]], data);
}

/** VippsApi::epayment_get_payment, as the plugin polls the order's status. */
function getPayment(order: WooOrder): Promise<WireAnswer> {
  return plugin.httpCall('GET', `epayment/v1/payments/${order.reference}`, plugin.headers());
}

/** The test user approving in the app (not the plugin): the platform's force approve. */
async function userApproves(order: WooOrder): Promise<void> {
  const approved = await fixture.merchant.forceApprove(order.reference);
  expect(outcome(approved)).toBe('200');
}

let webhookSecret = '';

test('the token: POST /accessToken/get with client_id, client_secret and the subscription key as headers', async () => {
  const token = await plugin.requestToken();
  expect(outcome(token)).toBe('200');
  // get_access_token caches it for expires_in / 2 seconds.
  expect(token.json).toEqual(expect.objectContaining({ access_token: expect.any(String), expires_in: expect.anything() }));
  plugin.accessToken = token.json.access_token;
});

test('the webhook: listed, then registered for the shop with the four payment events (VippsApi::register_webhook)', async () => {
  const listed = await plugin.httpCall('GET', 'webhooks/v1/webhooks', plugin.headers());
  expect(outcome(listed)).toBe('200');
  const callback = `${shop.url}/wc-api/wc_gateway_vipps/?callback=webhook`;
  const events = [
    'epayments.payment.authorized.v1',
    'epayments.payment.aborted.v1',
    'epayments.payment.expired.v1',
    'epayments.payment.terminated.v1',
  ];
  const registered = await plugin.httpCall('POST', 'webhooks/v1/webhooks', plugin.headers(), { url: callback, events });
  expect(outcome(registered)).toBe('201');
  expect(registered.json).toEqual({ id: expect.any(String), secret: expect.any(String) });
  webhookSecret = registered.json.secret;
});

test('an order: created with its receipt, polled, authorized (webhook verified as the plugin does), captured, refunded, categorised, read back', async () => {
  const order = wooOrder(42);

  const created = await initiatePayment(order);
  expect(outcome(created)).toBe('201');
  expect(created.json).toEqual(expect.objectContaining({ reference: order.reference, redirectUrl: expect.any(String) }));

  const polled = await getPayment(order);
  expect(outcome(polled)).toBe('200');
  expect(polled.json).toEqual(expect.objectContaining({ reference: order.reference, state: 'CREATED' }));

  await userApproves(order);
  const webhook = await shop.waitForCall((call) => call.rawPost.includes(order.reference), 'webhook for the order');
  expect(verifyWebhook(webhook, webhookSecret)).toBe(true);
  // What Vipps::vipps_callback reads from a webhook: the MSN under either spelling, the event name, the reference.
  const payload = JSON.parse(webhook.rawPost);
  expect(payload.msn ?? payload.merchantSerialNumber).toBe(MERCHANT_A.msn);
  expect(payload).toEqual(expect.objectContaining({ name: 'AUTHORIZED', reference: order.reference, pspReference: expect.anything() }));
  // A forged one (another secret) is refused by the same check.
  expect(verifyWebhook(webhook, 'not-the-secret')).toBe(false);

  expect((await getPayment(order)).json.state).toBe('AUTHORIZED');

  // WC_Gateway_Vipps::capture_payment: Idempotency-Key "{capture transid}:{order key}", the amount a PHP float.
  const captured = await plugin.httpCall(
    'POST',
    `epayment/v1/payments/${order.reference}/capture`,
    [...plugin.headers(), ['Idempotency-Key', `0:${order.key}`]],
    { modificationAmount: { value: float(ORDER_TOTAL), currency: 'NOK' } },
  );
  expect(outcome(captured)).toBe('200');

  // WC_Gateway_Vipps::refund_payment of 100.00 kroner (round($amount * 100)); its first key is the capture's too.
  const refunded = await plugin.httpCall(
    'POST',
    `epayment/v1/payments/${order.reference}/refund`,
    [...plugin.headers(), ['Idempotency-Key', `0:${order.key}`]],
    { modificationAmount: { value: float(10000), currency: 'NOK' } },
  );
  expect(outcome(refunded)).toBe('200');

  const after = await getPayment(order);
  expect(after.json.aggregate).toEqual(
    expect.objectContaining({
      capturedAmount: { currency: 'NOK', value: ORDER_TOTAL },
      refundedAmount: { currency: 'NOK', value: 10000 },
    }),
  );

  // VippsApi::add_category (WC_Gateway_Vipps::add_order_categories: ORDER_CONFIRMATION, no image); payment type `ecom`.
  const categorised = await plugin.httpCall('PUT', `order-management/v2/ecom/categories/${order.reference}`, plugin.headers(), {
    category: 'ORDER_CONFIRMATION',
    orderDetailsUrl: `${SHOP}/checkout/order-received/${order.id}/?key=${order.key}`,
  });
  expect(outcome(categorised)).toMatch(/^2\d\d$/);

  // VippsApi::get_receipt: the receipt sent with the create, and the category.
  const readBack = await plugin.httpCall('GET', `order-management/v2/ecom/${order.reference}`, plugin.headers());
  expect(outcome(readBack)).toBe('200');
  expect(readBack.json.category).toEqual(expect.objectContaining({ category: 'ORDER_CONFIRMATION' }));
  expect(readBack.json.receipt.orderLines).toHaveLength(2);
  expect(readBack.json.receipt.orderLines[0]).toEqual(expect.objectContaining({ name: 'Ullsokker', totalAmount: 49900 }));
  expect(readBack.json.receipt.bottomLine).toEqual(expect.objectContaining({ currency: 'NOK', receiptNumber: '42' }));
});

test('two orders cancelled, each with `Idempotency-Key: 1`; the express one has a customer without an identifier', async () => {
  const ordinary = wooOrder(43);
  const express = wooOrder(44);
  expect(outcome(await initiatePayment(ordinary))).toBe('201');
  const expressCreated = await initiatePayment(express, true);
  expect(outcome(expressCreated)).toBe('201');

  // WC_Gateway_Vipps::cancel_payment: $requestid = 1 for every cancel; VippsApi::epayment_cancel_payment's body.
  for (const order of [ordinary, express]) {
    const cancelled = await plugin.httpCall(
      'POST',
      `epayment/v1/payments/${order.reference}/cancel`,
      [...plugin.headers(), ['Idempotency-Key', '1']],
      { cancelTransactionOnly: false },
    );
    expect({ order: order.reference, outcome: outcome(cancelled) }).toEqual({ order: order.reference, outcome: '200' });
    expect((await getPayment(order)).json.state).toBe('TERMINATED');
  }
});

test('a Checkout order: session created with its order summary, updated (PATCH), expired, polled as expired', async () => {
  const order = wooOrder(45);
  // Checkout requests carry get_headers() and the client credentials (VippsApi::initiate_checkout and the others).
  const checkoutHeaders = (): [string, string][] => [
    ...plugin.headers(),
    ['client_id', MERCHANT_A.clientId],
    ['client_secret', MERCHANT_A.clientSecret],
  ];
  const summary = () => {
    const { orderLines, bottomLine } = receiptData(order.id);
    const { receiptNumber: _finalOnlyOnReceipt, ...orderBottomLine } = bottomLine;
    return { orderLines, orderBottomLine };
  };
  const authToken = 'c2VjcmV0LWF1dGh0b2tlbi00NQ';

  // VippsApi::initiate_checkout for an order that needs shipping, without static shipping options.
  const created = await plugin.httpCall('POST', 'checkout/v3/session', [...checkoutHeaders(), ['Idempotency-Key', order.key]], {
    reference: order.reference,
    logistics: {
      dynamicOptionsCallback: `${SHOP}/wc-api/vipps_shipping_details/?tk=${authToken}&id=${order.id}&callback=/v3/checkout/${order.reference}/shippingDetails`,
    },
    type: 'PAYMENT',
    merchantInfo: {
      callbackAuthorizationToken: authToken,
      callbackUrl: `${SHOP}/wc-api/wc_gateway_vipps/?tk=${authToken}&id=${order.id}&callback=checkout`,
      returnUrl: `${SHOP}/vipps-betaling/?t=${order.key}&id=${order.id}`,
      termsAndConditionsUrl: `${SHOP}/vilkar/`,
    },
    configuration: {
      elements: 'Full',
      customerInteraction: 'CUSTOMER_NOT_PRESENT',
      userFlow: 'WEB_REDIRECT',
      requireUserInfo: false,
      showOrderSummary: true,
      countries: { supported: ['NO'] },
    },
    transaction: {
      reference: order.reference,
      amount: { value: float(ORDER_TOTAL), currency: 'NOK' },
      paymentDescription: `Confirm your order from ${SHOP}`,
      orderSummary: summary(),
    },
  });
  expect(outcome(created)).toMatch(/^2\d\d$/);
  expect(created.json).toEqual(
    expect.objectContaining({ token: expect.any(String), checkoutFrontendUrl: expect.any(String), pollingUrl: expect.any(String) }),
  );

  // VippsApi::checkout_modify_session after the total changed: only `transaction` (amount at least 100).
  const updated = await plugin.httpCall('PATCH', `checkout/v3/session/${encodeURIComponent(order.reference)}`, checkoutHeaders(), {
    transaction: {
      amount: { value: float(ORDER_TOTAL - 1250), currency: 'NOK' },
      paymentDescription: `Confirm your order from ${SHOP}`,
      orderSummary: summary(),
    },
  });
  expect(outcome(updated)).toMatch(/^2\d\d$/);

  // VippsApi::checkout_get_session_info.
  const info = await plugin.httpCall('GET', `checkout/v3/session/${order.reference}`, checkoutHeaders());
  expect(outcome(info)).toBe('200');
  expect(info.json.sessionState).toBe('SessionCreated');

  // VippsApi::checkout_expire_session (the order was cancelled): json_encode([]) is the body `[]`.
  const expired = await plugin.httpCall('POST', `checkout/v3/session/${order.reference}/expire`, checkoutHeaders(), []);
  expect(outcome(expired)).toMatch(/^2\d\d$/);

  const afterExpiry = await plugin.httpCall('GET', `checkout/v3/session/${order.reference}`, checkoutHeaders());
  expect(outcome(afterExpiry)).toBe('200');
  expect(afterExpiry.json.sessionState).toBe('SessionExpired');
});
