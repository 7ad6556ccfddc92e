import type { HeaderRules } from '../platform/auth/header-rules.js';
import { MERCHANT_API_AUTH } from '../platform/auth/merchant-api.js';
import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { invalidParamsProblem } from '../platform/rest/error-formats/invalid-params-problem.js';
import type { HttpResponse } from '../platform/rest/http-types.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import {
  categoryRequest,
  IMAGE_BODY_BYTES,
  imageRequest,
  orderIdParam,
  paymentTypeParam,
  receiptRequest,
  transactionIdParam,
  type PaymentType,
} from './order.schemas.js';
import { addOrderImage, addOrderReceipt, getOrder, orderIdOfTransaction, setOrderCategory } from './order.service.js';

/** Order management (FACTS §4): the MSN is required; the system headers may be up to 100 characters here. */
const ORDER_HEADERS: HeaderRules = { msn: 'required', systemHeaders: { presence: 'optional', maxLength: 100 } };
const current = { paymentType: paymentTypeParam, orderId: orderIdParam };

/** The documented "string identifier" answers: a JSON string. */
function jsonString(status: number, id: string): HttpResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(id) };
}

/** The Order Management API v2 and its deprecated v1 operations, at their public paths. */
export function orderRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    {
      name: 'Order Management API',
      prefix: '/order-management',
      errorFormat: invalidParamsProblem,
      auth: MERCHANT_API_AUTH,
      headers: ORDER_HEADERS,
    },
    (route) => [
      route({
        method: 'PUT',
        path: '/v2/{paymentType}/categories/{orderId}',
        summary: 'Add category to an order',
        idempotent: false,
        params: current,
        body: categoryRequest,
        success: { status: 200, description: 'The category id' },
        handler: async (ctx, { params, body }) =>
          jsonString(200, await setOrderCategory(ctx, params.paymentType as PaymentType, params.orderId, body)),
      }),
      route({
        method: 'POST',
        path: '/v1/images',
        summary: 'Add an image',
        idempotent: false,
        body: imageRequest,
        maxBodyBytes: IMAGE_BODY_BYTES,
        success: { status: 200, description: 'The image id' },
        handler: async (ctx, { body }) => ({ status: 200, body: { imageId: (await addOrderImage(ctx, body)).imageId } }),
      }),
      route({
        method: 'GET',
        path: '/v2/{paymentType}/{orderId}',
        summary: 'Get order with category and receipt',
        idempotent: false,
        params: current,
        success: { status: 200, description: 'The order' },
        handler: async (ctx, { params }) => {
          const order = await getOrder(ctx, params.paymentType as PaymentType, params.orderId);
          // The definition types both as objects: one the order does not have is left out, never null.
          return {
            status: 200,
            body: { ...(order.category ? { category: order.category } : {}), ...(order.receipt ? { receipt: order.receipt } : {}) },
          };
        },
      }),
      route({
        method: 'POST',
        path: '/v2/{paymentType}/receipts/{orderId}',
        summary: 'Add receipt to an order',
        idempotent: false,
        params: current,
        body: receiptRequest,
        success: { status: 201, description: 'The receipt id' },
        handler: async (ctx, { params, body }) =>
          jsonString(201, await addOrderReceipt(ctx, params.paymentType as PaymentType, params.orderId, body)),
      }),
      route({
        method: 'PUT',
        path: '/v1/orders/{transactionId}',
        summary: 'Add info to an order (deprecated)',
        idempotent: false,
        params: { transactionId: transactionIdParam },
        body: categoryRequest,
        success: { status: 200, description: 'The order info' },
        handler: async (ctx, { params, body }) => {
          const orderId = await orderIdOfTransaction(ctx, params.transactionId);
          await setOrderCategory(ctx, 'ecom', orderId, body);
          return { status: 200, body: { category: body.category, orderDetailsUrl: body.orderDetailsUrl, imageId: body.imageId } };
        },
      }),
      route({
        method: 'GET',
        path: '/v1/orders/{transactionId}',
        summary: 'Get info for an order (deprecated)',
        idempotent: false,
        params: { transactionId: transactionIdParam },
        success: { status: 200, description: 'The order info' },
        handler: async (ctx, { params }) => {
          const order = await getOrder(ctx, 'ecom', await orderIdOfTransaction(ctx, params.transactionId));
          if (!order.category)
            throw new AppError('ORDER_NOT_FOUND', 'The order has no info', [{ name: 'transactionId', reason: 'Not found' }]);
          return {
            status: 200,
            body: {
              category: order.category.category,
              orderDetailsUrl: order.category.orderDetailsUrl,
              imageIds: order.images.map((image, i) => ({ id: image.imageId, sortOrder: i + 1 })),
            },
          };
        },
      }),
      route({
        method: 'GET',
        path: '/v1/receipts/{transactionId}',
        summary: 'Get receipt for an order (deprecated)',
        idempotent: false,
        params: { transactionId: transactionIdParam },
        success: { status: 200, description: 'The receipt' },
        handler: async (ctx, { params }) => {
          const order = await getOrder(ctx, 'ecom', await orderIdOfTransaction(ctx, params.transactionId));
          if (!order.receipt)
            throw new AppError('ORDER_NOT_FOUND', 'The order has no receipt', [{ name: 'transactionId', reason: 'Not found' }]);
          return { status: 200, body: order.receipt };
        },
      }),
      route({
        method: 'POST',
        path: '/v1/receipts/{transactionId}',
        summary: 'Add receipt to an order (deprecated)',
        idempotent: false,
        params: { transactionId: transactionIdParam },
        body: receiptRequest,
        success: { status: 200, description: 'The receipt id' },
        handler: async (ctx, { params, body }) =>
          jsonString(200, await addOrderReceipt(ctx, 'ecom', await orderIdOfTransaction(ctx, params.transactionId), body)),
      }),
    ],
  );
}
