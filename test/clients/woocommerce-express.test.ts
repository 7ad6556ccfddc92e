import { useTestApp } from '../support/app-fixture.js';
import { submitLandingForm } from '../support/user-consent.js';
import { float, outcome, phpJsonEncode, type PhpValue, type WireAnswer } from '../support/php-client.js';
import { ShopSite, verifyWebhook, WooPlugin, type ReceivedCall } from './support/woocommerce-plugin.js';

/**
 * WooCommerce 6.0.5's Express order that needs shipping (vippsas/vipps-woocommerce@c960c0da, FACTS §14.1), replayed:
 * the create as `VippsApi::epayment_initiate_payment` builds it with `shipping` (`VippsApi.class.php:600-690`), the
 * shop's shipping callback answering as `Vipps::vipps_shipping_details_callback` does (`Vipps.class.php:3113-3360`,
 * groups as `express_format_shipping_methods` writes them, 3582-3640), the user on the landing page, and the plugin
 * meeting the result both ways: the authorized webhook first (`WC_Gateway_Vipps::handle_callback`, verified as
 * `Vipps::verify_webhook` does) and the GET first (`set_order_shipping_details` after `normalizeShippingDetails`),
 * then the capture of the total with shipping.
 */
const fixture = useTestApp();

const SHOP = 'https://shop.example.com';
const CART_TOTAL = 49_900; // one product of 499.00: the order total before shipping, in øre
const AUTH_TOKEN = 'd29vLWF1dGh0b2tlbi1leHByZXNz';

const plugin = new WooPlugin(() => fixture.baseUrl);
const expressHeaders = () => plugin.headers('woo-vipps-express');
/** The shop: the webhook (`handle_callback` after `vipps_callback`'s 202) and the shipping callback. */
const shop = new ShopSite((call) =>
  call.requestUri.startsWith('/wc-api/vipps_shipping_details/')
    ? { ...shippingDetailsCallback(call), contentType: 'application/json' }
    : { status: 202 },
);
beforeAll(() => shop.start());
afterAll(() => shop.close());

/** `express_format_shipping_methods`: one OTHER/OTHER group per rate, isDefault on the group, amounts from round(). */
function wooGroups(): PhpValue[] {
  const rate = (priority: number, name: string, id: string, cost: number, isDefault: boolean): PhpValue => ({
    isDefault,
    priority,
    brand: 'OTHER',
    type: 'OTHER',
    options: [{ priority, name, id, amount: { value: float(cost), currency: 'NOK' } }],
  });
  return [rate(0, 'Flat rate', 'flat_rate:1', 6_250, true), rate(1, 'Hent i butikk', 'local_pickup:3', 0, false)];
}

interface WooOrder {
  id: number;
  key: string;
  reference: string;
}
const wooOrder = (id: number): WooOrder => ({ id, key: `wc_order_e${id}Xq7PzR2mT`, reference: `woo-shop-${id}` });

/** `epayment_initiate_payment` for an Express order that needs shipping: static (`fixedOptions`) or dynamic. */
function initiateExpress(order: WooOrder, staticShipping: boolean): Promise<WireAnswer> {
  const data: { [key: string]: PhpValue } = {
    reference: order.reference,
    userFlow: 'WEB_REDIRECT',
    paymentMethod: { type: 'WALLET' },
    amount: { currency: 'NOK', value: float(CART_TOTAL) },
    returnUrl: `${SHOP}/vipps-betaling/?t=${order.key}&id=${order.id}`,
    customer: { customerInteraction: 'CUSTOMER_NOT_PRESENT' },
    metadata: { orderid: order.id },
    profile: { scope: 'name email phoneNumber address' },
    minimumUserAge: null,
    paymentDescription: `Confirm your order from ${SHOP}`,
    shipping: staticShipping
      ? { fixedOptions: wooGroups() }
      : {
          dynamicOptions: {
            callbackUrl: `${shop.url}/wc-api/vipps_shipping_details/?tk=${AUTH_TOKEN}&id=${order.id}`,
            callbackAuthorizationToken: AUTH_TOKEN,
          },
        },
  };
  return plugin.httpCall('POST', 'epayment/v1/payments', [...expressHeaders(), ['Idempotency-Key', order.key]], data);
}

/**
 * `vipps_shipping_details_callback`: the body's camelCase keys (an empty or unreadable body is a 400), the order by
 * the URL's `id` (404 without), the token as `tk` in the URL it gave (403 when wrong); the rates for the address, or
 * `{"groups": []}` when none applies (here: outside Norway).
 */
function shippingDetailsCallback(call: ReceivedCall): { status: number; body: string } {
  let result: any;
  try {
    result = JSON.parse(call.rawPost);
  } catch {
    return { status: 400, body: '"Invalid JSON"' };
  }
  const url = new URL(call.requestUri, SHOP);
  if (!Number(url.searchParams.get('id'))) return { status: 404, body: '"Unknown order"' };
  if (url.searchParams.get('tk') !== AUTH_TOKEN) return { status: 403, body: '"Invalid authentication"' };
  if (!result.reference || !result.addressLine1 || !result.postCode) return { status: 400, body: '"Invalid order id"' };
  return { status: 200, body: phpJsonEncode({ groups: result.country === 'NO' ? wooGroups() : [] }) };
}

/**
 * What the plugin makes of a result (`normalizeShippingDetails`, `set_order_shipping_details`): the address from
 * `shippingDetails.address` (else `userDetails.addresses[0]`), names from `userDetails`, the rate by
 * `shippingMethodId` else `shippingOptionId`, and the shipping cost as the reserved `amount.value` less its cart total.
 */
function wooOrderFrom(result: any): { address: any; rateId: string; shippingCost: number; total: number; email: string } {
  const details = result.shippingDetails ?? { address: {} };
  const address = Object.keys(details.address ?? {}).length ? details.address : (result.userDetails?.addresses?.[0] ?? {});
  return {
    address: {
      ...address,
      firstName: address.firstName || result.userDetails.firstName,
      lastName: address.lastName || result.userDetails.lastName,
    },
    rateId: details.shippingMethodId ?? details.shippingOptionId ?? '',
    shippingCost: result.amount.value - CART_TOTAL,
    total: result.amount.value,
    email: result.userDetails.email,
  };
}

/** The user on the landing page: Kari, her address, the option, consent, approve (a browser's form posts). */
async function userApproves(createdAnswer: WireAnswer, optionId: string, address = '0'): Promise<void> {
  const page = await (await fetch(`${createdAnswer.json.redirectUrl}&phoneNumber=91234567&address=${address}`)).text();
  expect(page).toContain('Flat rate');
  const approved = await submitLandingForm(fixture.baseUrl, createdAnswer.json.redirectUrl, {
    phoneNumber: '91234567',
    address,
    shippingOptionId: optionId,
    consent: 'yes',
    action: 'approve',
  });
  expect(approved.status).toBe(200);
}

let webhookSecret = '';

test('the token and the webhook registration (VippsApi::register_webhook)', async () => {
  const token = await plugin.requestToken();
  expect(outcome(token)).toBe('200');
  plugin.accessToken = token.json.access_token;
  const registered = await plugin.httpCall('POST', 'webhooks/v1/webhooks', expressHeaders(), {
    url: `${shop.url}/wc-api/wc_gateway_vipps/?callback=webhook`,
    events: [
      'epayments.payment.authorized.v1',
      'epayments.payment.aborted.v1',
      'epayments.payment.expired.v1',
      'epayments.payment.terminated.v1',
    ],
  });
  expect(outcome(registered)).toBe('201');
  webhookSecret = registered.json.secret;
});

test('static shipping, webhook first: handle_callback takes the result from the webhook, then captures the total', async () => {
  const order = wooOrder(70);
  const created = await initiateExpress(order, true);
  expect(outcome(created)).toBe('201');

  await userApproves(created, 'flat_rate:1', '1');
  const webhook = await shop.waitForCall(
    (c) => c.rawPost.includes(order.reference) && c.rawPost.includes('AUTHORIZED'),
    'the authorized webhook',
  );
  expect(verifyWebhook(webhook, webhookSecret)).toBe(true);
  const result = JSON.parse(webhook.rawPost);
  // With userDetails in the webhook, handle_callback makes no GET (WC_Gateway_Vipps.class.php:3563).
  expect(result.userDetails).toBeDefined();
  const wc = wooOrderFrom(result);
  expect(wc).toEqual({
    address: expect.objectContaining({
      addressLine1: 'Dronning Eufemias gate 16',
      postCode: '0191',
      city: 'Oslo',
      country: 'NO',
      firstName: 'Kari',
      lastName: 'Nordmann',
    }),
    rateId: 'flat_rate:1',
    shippingCost: 6_250,
    total: CART_TOTAL + 6_250,
    email: 'kari.nordmann@example.com',
  });
  expect(result.profile.sub).toEqual(expect.any(String));

  const captured = await plugin.httpCall(
    'POST',
    `epayment/v1/payments/${order.reference}/capture`,
    [...expressHeaders(), ['Idempotency-Key', `0:${order.key}`]],
    { modificationAmount: { value: float(wc.total), currency: 'NOK' } },
  );
  expect(outcome(captured)).toBe('200');
  expect(captured.json.aggregate.capturedAmount).toEqual({ currency: 'NOK', value: CART_TOTAL + 6_250 });
});

test('dynamic shipping, GET first: the shop answers the callback, the plugin reads the payment, then captures the total', async () => {
  const order = wooOrder(71);
  const created = await initiateExpress(order, false);
  expect(outcome(created)).toBe('201');

  await userApproves(created, 'flat_rate:1');
  const callback = await shop.waitForCall((c) => c.requestUri.startsWith('/wc-api/vipps_shipping_details/'), 'the shipping callback');
  expect(JSON.parse(callback.rawPost)).toEqual({
    reference: order.reference,
    addressLine1: 'Storgata 1',
    addressLine2: null,
    city: 'Oslo',
    postCode: '0155',
    country: 'NO',
  });
  expect(callback.headers.authorization).toBe(AUTH_TOKEN);

  // epayment_get_payment, as the plugin polls the order (set_order_shipping_details from the GET).
  const polled = await plugin.httpCall('GET', `epayment/v1/payments/${order.reference}`, expressHeaders());
  expect(outcome(polled)).toBe('200');
  expect(polled.json.state).toBe('AUTHORIZED');
  const wc = wooOrderFrom(polled.json);
  expect(wc).toEqual(expect.objectContaining({ rateId: 'flat_rate:1', shippingCost: 6_250, total: CART_TOTAL + 6_250 }));
  expect(wc.address).toEqual(expect.objectContaining({ addressLine1: 'Storgata 1', country: 'NO', firstName: 'Kari' }));

  const captured = await plugin.httpCall(
    'POST',
    `epayment/v1/payments/${order.reference}/capture`,
    [...expressHeaders(), ['Idempotency-Key', `0:${order.key}`]],
    { modificationAmount: { value: float(wc.total), currency: 'NOK' } },
  );
  expect(outcome(captured)).toBe('200');
});

test("free pickup, chosen in the wallet: the total is the cart's", async () => {
  const order = wooOrder(72);
  const created = await initiateExpress(order, true);
  await userApproves(created, 'local_pickup:3');
  const polled = await plugin.httpCall('GET', `epayment/v1/payments/${order.reference}`, expressHeaders());
  expect(wooOrderFrom(polled.json)).toEqual(expect.objectContaining({ rateId: 'local_pickup:3', shippingCost: 0, total: CART_TOTAL }));
});
