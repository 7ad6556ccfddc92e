import { randomUUID } from 'node:crypto';
import { expectInvalidParamsProblem } from '../support/invalid-params-problem.js';
import { MERCHANT_B, MerchantClient, newReference, type HttpResult } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { base64, jpegImage, pngImage } from '../support/images.js';

/** Random pixels hardly compress: just over and just under 2 MB (made before the app starts, so no request waits on them). */
const BIG = pngImage(760, 760, true);
const UNDER = pngImage(700, 700, true);

let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const orderLine = {
  name: 'Socks',
  id: 'line-1',
  totalAmount: 10_000,
  totalAmountExcludingTax: 8_000,
  totalTaxAmount: 2_000,
  taxPercentage: 25,
  unitInfo: { unitPrice: 5_000, quantity: '2', quantityUnit: 'PCS' },
};
const RECEIPT = {
  orderLines: [orderLine],
  bottomLine: { currency: 'NOK', receiptNumber: 'R-1', barcode: { format: 'EAN-13', data: '123' } },
};
const newOrderId = () => `order-${randomUUID()}`;
const uploadImage = (client: MerchantClient, imageId: string, src: string) =>
  client.request('POST', '/order-management/v1/images', { imageId, src, type: 'base64' });
const putCategory = (client: MerchantClient, orderId: string, body: unknown, type = 'ecom') =>
  client.request('PUT', `/order-management/v2/${type}/categories/${orderId}`, body);
const getOrder = (client: MerchantClient, orderId: string, type = 'ecom') =>
  client.request('GET', `/order-management/v2/${type}/${orderId}`);
const postReceipt = (client: MerchantClient, orderId: string, body: unknown, type = 'ecom') =>
  client.request('POST', `/order-management/v2/${type}/receipts/${orderId}`, body);

/** The interface's documented error body (FACTS §4), naming the field at fault; every refusal here lists its fields. */
function expectRefusal(res: HttpResult, status: number, name?: string): void {
  expectInvalidParamsProblem(res, status, name);
  expect(Array.isArray(res.body.invalidParams)).toBe(true);
}

describe('images', () => {
  test('a PNG and a JPEG are accepted once; an imageId is never overwritten', async () => {
    const png = await uploadImage(merchant, 'socks-png', base64(pngImage(200, 200)));
    expect(png.status).toBe(200);
    expect(png.body).toEqual({ imageId: 'socks-png' });
    expect((await uploadImage(merchant, 'socks.jpeg_1', base64(jpegImage(180, 170)))).body).toEqual({ imageId: 'socks.jpeg_1' });
    expectRefusal(await uploadImage(merchant, 'socks-png', base64(pngImage(300, 300))), 409, 'imageId');
  });

  test.each([
    ['not base64', 'data:image/png;base64,AAAA'],
    ['not an image', base64(Buffer.from('GIF89a not what we take'))],
    ['a broken PNG (truncated)', base64(pngImage(200, 200).subarray(0, 60))],
    ['lower than 167 px', base64(pngImage(400, 166))],
  ])('%s is a 400 naming src', async (_, src) => {
    expectRefusal(await uploadImage(merchant, `bad-${randomUUID()}`, src), 400, 'src');
  });

  test('an image of more than 2 MB is a 400 naming src; one just under is accepted (its body is larger than 1 MiB)', async () => {
    expect(BIG.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(UNDER.length).toBeLessThan(2 * 1024 * 1024);
    expect(base64(UNDER).length).toBeGreaterThan(1024 * 1024);
    expect((await uploadImage(merchant, 'just-under', base64(UNDER))).status).toBe(200);
    expectRefusal(await uploadImage(merchant, 'too-big', base64(BIG)), 400, 'src');
  }, 120_000);

  test('other routes keep the 1 MiB body limit', async () => {
    const res = await putCategory(merchant, newOrderId(), {
      category: 'GENERAL',
      orderDetailsUrl: `https://x.example/${'a'.repeat(1_100_000)}`,
    });
    expect(res.status).toBe(413);
  });

  test.each([
    ['imageId with a space', { imageId: 'a b', src: base64(pngImage(200, 200)), type: 'base64' }, 'imageId'],
    ['imageId of 129 characters', { imageId: 'a'.repeat(129), src: base64(pngImage(200, 200)), type: 'base64' }, 'imageId'],
    ['type not base64', { imageId: 'x1', src: base64(pngImage(200, 200)), type: 'url' }, 'type'],
    ['no src', { imageId: 'x2', type: 'base64' }, 'src'],
  ])('%s is a 400', async (_, body, name) => {
    expectRefusal(await merchant.request('POST', '/order-management/v1/images', body), 400, name);
  });
});

describe('categories and receipts', () => {
  test('a category is set, replaced by a later PUT, and read with the receipt', async () => {
    const orderId = newOrderId();
    await uploadImage(merchant, 'cat-image', base64(pngImage(200, 200)));
    const first = await putCategory(merchant, orderId, {
      category: 'GENERAL',
      orderDetailsUrl: 'https://shop.example/o/1',
      imageId: 'cat-image',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatch(/^[0-9a-f-]{36}$/);
    // issue 19: no receipt yet, so none in the body (the definition types it as an object, never null).
    expect((await getOrder(merchant, orderId)).body).toEqual({
      category: { category: 'GENERAL', orderDetailsUrl: 'https://shop.example/o/1', imageId: 'cat-image' },
    });
    expect((await putCategory(merchant, orderId, { category: 'TICKET', orderDetailsUrl: 'https://shop.example/o/2' })).status).toBe(200);
    const receipt = await postReceipt(merchant, orderId, RECEIPT);
    expect(receipt.status).toBe(201);
    expect(receipt.body).toMatch(/^[0-9a-f-]{36}$/);
    expect((await getOrder(merchant, orderId)).body).toEqual({
      category: { category: 'TICKET', orderDetailsUrl: 'https://shop.example/o/2', imageId: null },
      receipt: RECEIPT,
    });
    // Recurring orders are apart from ecom orders of the same id.
    expectRefusal(await getOrder(merchant, orderId, 'recurring'), 404);
  });

  test('a receipt is immutable once sent (409)', async () => {
    const orderId = newOrderId();
    expect((await postReceipt(merchant, orderId, RECEIPT, 'recurring')).status).toBe(201);
    expectRefusal(await postReceipt(merchant, orderId, { ...RECEIPT, bottomLine: { currency: 'NOK' } }, 'recurring'), 409);
    expect((await getOrder(merchant, orderId, 'recurring')).body.receipt).toEqual(RECEIPT);
  });

  test('an unknown order is a 404 in the interface body', async () => {
    expectRefusal(await getOrder(merchant, newOrderId()), 404, 'orderId');
  });

  const category = { category: 'GENERAL', orderDetailsUrl: 'https://shop.example/o' };
  test.each([
    ['a category outside the enum', { ...category, category: 'SOCKS' }, 'category'],
    ['an empty orderDetailsUrl', { ...category, orderDetailsUrl: '' }, 'orderDetailsUrl'],
    ['an orderDetailsUrl that is no URI', { ...category, orderDetailsUrl: 'not a uri' }, 'orderDetailsUrl'],
    ['an imageId that does not exist', { ...category, imageId: 'never-uploaded' }, 'imageId'],
    ['an imageId with bad characters', { ...category, imageId: 'a/b' }, 'imageId'],
  ])('a category with %s is a 400', async (_, body, name) => {
    expectRefusal(await putCategory(merchant, newOrderId(), body), 400, name);
  });

  test('a null category is accepted (the spec allows null), and read back as null', async () => {
    const res = await putCategory(merchant, newOrderId(), { ...category, category: null });
    expect(res.body).toMatch(/^[0-9a-f-]{36}$/);
    const orderId = newOrderId();
    expect((await putCategory(merchant, orderId, { orderDetailsUrl: 'https://shop.example' })).status).toBe(200);
    expect((await getOrder(merchant, orderId)).body.category).toEqual({
      category: null,
      orderDetailsUrl: 'https://shop.example',
      imageId: null,
    });
  });

  test.each([
    ['empty orderLines', { ...RECEIPT, orderLines: [] }, 'orderLines'],
    ['no bottomLine', { orderLines: [orderLine] }, 'bottomLine'],
    ['a non-integer amount', { ...RECEIPT, orderLines: [{ ...orderLine, totalAmount: 10.5 }] }, 'orderLines[0].totalAmount'],
    [
      'a quantity that is not decimal text',
      { ...RECEIPT, orderLines: [{ ...orderLine, unitInfo: { ...orderLine.unitInfo, quantity: 'two' } }] },
      'orderLines[0].unitInfo.quantity',
    ],
    [
      'a quantityUnit outside the enum',
      { ...RECEIPT, orderLines: [{ ...orderLine, unitInfo: { ...orderLine.unitInfo, quantityUnit: 'BOX' } }] },
      'orderLines[0].unitInfo.quantityUnit',
    ],
    [
      'a barcode format outside the enum',
      { ...RECEIPT, bottomLine: { currency: 'NOK', barcode: { format: 'QR', data: '1' } } },
      'bottomLine.barcode.format',
    ],
  ])('a receipt with %s is a 400', async (_, body, name) => {
    expectRefusal(await postReceipt(merchant, newOrderId(), body), 400, name);
  });

  test.each([
    ['a paymentType other than ecom or recurring', '/order-management/v2/card/order-1', 'paymentType'],
    ['an orderId with a space', '/order-management/v2/ecom/order%201', 'orderId'],
  ])('%s is a 400', async (_, path, name) => {
    expectRefusal(await merchant.request('GET', path), 400, name);
  });

  test('system headers may be up to 100 characters here; the MSN is required', async () => {
    const orderId = newOrderId();
    await putCategory(merchant, orderId, category);
    expect(
      (await merchant.request('GET', `/order-management/v2/ecom/${orderId}`, undefined, { 'Svc-System-Name': 'a'.repeat(100) })).status,
    ).toBe(200);
    expectRefusal(
      await merchant.request('GET', `/order-management/v2/ecom/${orderId}`, undefined, { 'Svc-System-Name': 'a'.repeat(101) }),
      400,
      'Svc-System-Name',
    );
    const headers = await merchant.headers();
    delete headers['Merchant-Serial-Number'];
    expectRefusal(await merchant.raw('GET', `/order-management/v2/ecom/${orderId}`, undefined, headers), 400, 'Merchant-Serial-Number');
  });
});

describe("a payment's order", () => {
  test('the receipt given at create is the order receipt; the deprecated transactionId operations name the same order', async () => {
    const reference = newReference();
    expect((await merchant.createPayment({ reference, receipt: RECEIPT })).status).toBe(201);
    const pspReference = (await merchant.getPayment(reference)).body.pspReference as string;
    expect((await getOrder(merchant, reference)).body).toEqual({ receipt: RECEIPT });
    expectRefusal(await postReceipt(merchant, reference, RECEIPT), 409);
    expectRefusal(await merchant.request('POST', `/order-management/v1/receipts/${pspReference}`, RECEIPT), 409);
    expect((await merchant.request('GET', `/order-management/v1/receipts/${pspReference}`)).body).toEqual(RECEIPT);

    await uploadImage(merchant, `img-${reference}`, base64(pngImage(170, 170)));
    const info = { category: 'DELIVERY', orderDetailsUrl: 'https://shop.example/track', imageId: `img-${reference}` };
    const put = await merchant.request('PUT', `/order-management/v1/orders/${pspReference}`, info);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(info);
    expect((await merchant.request('GET', `/order-management/v1/orders/${reference}`)).body).toEqual({
      category: 'DELIVERY',
      orderDetailsUrl: 'https://shop.example/track',
      imageIds: [{ id: `img-${reference}`, sortOrder: 1 }],
    });
    expect((await getOrder(merchant, reference)).body.category).toEqual(info);

    const graph = await merchant.graphql(
      `query($r: String!) { payment(reference: $r) { order {
        category { category orderDetailsUrl imageId } images { imageId format width height }
        receipt { orderLines { id quantity quantityUnit totalAmount { value } } receiptNumber }
        orderLines { id } } } }`,
      { r: reference },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.payment.order).toEqual({
      category: { category: 'DELIVERY', orderDetailsUrl: 'https://shop.example/track', imageId: `img-${reference}` },
      images: [{ imageId: `img-${reference}`, format: 'png', width: 170, height: 170 }],
      receipt: { orderLines: [{ id: 'line-1', quantity: '2', quantityUnit: 'PCS', totalAmount: { value: 10_000 } }], receiptNumber: 'R-1' },
      orderLines: [{ id: 'line-1' }],
    });
  });

  test('a deprecated receipt POST to a payment without one is stored (200) and readable on v2', async () => {
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const res = await merchant.request('POST', `/order-management/v1/receipts/${reference}`, RECEIPT);
    expect(res.status).toBe(200);
    expect((await getOrder(merchant, reference)).body.receipt).toEqual(RECEIPT);
    expectRefusal(await merchant.request('GET', `/order-management/v1/orders/${reference}`), 404);
  });
});

describe('tenancy', () => {
  test("merchant B sees none of merchant A's orders or images", async () => {
    const orderId = newOrderId();
    await uploadImage(merchant, 'tenant-image', base64(pngImage(200, 200)));
    await putCategory(merchant, orderId, { category: 'GENERAL', orderDetailsUrl: 'https://a.example', imageId: 'tenant-image' });
    await postReceipt(merchant, orderId, RECEIPT);
    const foreign = await getOrder(other, orderId);
    const absent = await getOrder(other, newOrderId());
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, instance: '', detail: '' }).toEqual({ ...absent.body, instance: '', detail: '' });
    // A's image does not exist for B; B's own image of the same id is B's.
    expectRefusal(
      await putCategory(other, orderId, { category: 'GENERAL', orderDetailsUrl: 'https://b.example', imageId: 'tenant-image' }),
      400,
      'imageId',
    );
    expect((await uploadImage(other, 'tenant-image', base64(pngImage(200, 200)))).status).toBe(200);
    // B's order of the same id is its own; A's is unchanged.
    expect((await postReceipt(other, orderId, RECEIPT)).status).toBe(201);
    expect((await getOrder(merchant, orderId)).body.category.orderDetailsUrl).toBe('https://a.example');
    const graph = await other.graphql('query($o: String!) { order(paymentType: ECOM, orderId: $o) { category { orderDetailsUrl } } }', {
      o: orderId,
    });
    expect(graph.body.data.order).toEqual({ category: null });
  });
});

describe('the graph', () => {
  test('mutations use the same rules and report typed userErrors', async () => {
    const orderId = newOrderId();
    const image = await merchant.graphql(
      'mutation($i: AddOrderImageInput!) { addOrderImage(input: $i) { image { imageId format height } userErrors { code field } } }',
      { i: { imageId: 'graph-image', src: base64(jpegImage(200, 180)) } },
    );
    expect(image.body.data.addOrderImage).toEqual({ image: { imageId: 'graph-image', format: 'jpeg', height: 180 }, userErrors: [] });
    const again = await merchant.graphql(
      'mutation($i: AddOrderImageInput!) { addOrderImage(input: $i) { image { imageId } userErrors { code field } } }',
      { i: { imageId: 'graph-image', src: base64(pngImage(200, 200)) } },
    );
    expect(again.body.data.addOrderImage).toEqual({ image: null, userErrors: [{ code: 'IMAGE_ALREADY_EXISTS', field: 'imageId' }] });
    const small = await merchant.graphql('mutation($i: AddOrderImageInput!) { addOrderImage(input: $i) { userErrors { code field } } }', {
      i: { imageId: 'graph-small', src: base64(pngImage(200, 100)) },
    });
    expect(small.body.data.addOrderImage.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'src' }]);

    const SET = `mutation($i: SetOrderCategoryInput!) { setOrderCategory(input: $i) {
      categoryId order { orderId paymentType category { category imageId } images { imageId } } userErrors { code field } } }`;
    const set = await merchant.graphql(SET, {
      i: { paymentType: 'ECOM', orderId, category: 'BOOKING', orderDetailsUrl: 'https://shop.example/b', imageId: 'graph-image' },
    });
    expect(set.body.data.setOrderCategory).toEqual({
      categoryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      order: {
        orderId,
        paymentType: 'ECOM',
        category: { category: 'BOOKING', imageId: 'graph-image' },
        images: [{ imageId: 'graph-image' }],
      },
      userErrors: [],
    });
    const badUrl = await merchant.graphql(SET, { i: { paymentType: 'ECOM', orderId, category: 'BOOKING', orderDetailsUrl: '' } });
    expect(badUrl.body.data.setOrderCategory.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'orderDetailsUrl' }]);
    const badId = await merchant.graphql(SET, {
      i: { paymentType: 'ECOM', orderId: 'a b', category: 'BOOKING', orderDetailsUrl: 'https://x.example' },
    });
    expect(badId.body.data.setOrderCategory.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'orderId' }]);

    const RECEIPT_MUTATION = `mutation($i: AddOrderReceiptInput!) { addOrderReceipt(input: $i) {
      receiptId order { receipt { orderLines { id } receiptNumber } } userErrors { code field } } }`;
    const receipt = await merchant.graphql(RECEIPT_MUTATION, { i: { paymentType: 'ECOM', orderId, receipt: RECEIPT } });
    expect(receipt.body.data.addOrderReceipt).toEqual({
      receiptId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      order: { receipt: { orderLines: [{ id: 'line-1' }], receiptNumber: 'R-1' } },
      userErrors: [],
    });
    const twice = await merchant.graphql(RECEIPT_MUTATION, { i: { paymentType: 'ECOM', orderId, receipt: RECEIPT } });
    expect(twice.body.data.addOrderReceipt.userErrors).toEqual([{ code: 'RECEIPT_ALREADY_SENT', field: 'orderId' }]);
    const empty = await merchant.graphql(RECEIPT_MUTATION, {
      i: { paymentType: 'RECURRING', orderId, receipt: { ...RECEIPT, orderLines: [] } },
    });
    expect(empty.body.data.addOrderReceipt.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'orderLines' }]);

    // REST reads what the graph wrote.
    expect((await getOrder(merchant, orderId)).body.receipt).toEqual(RECEIPT);
  });
});
