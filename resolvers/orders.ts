import { withoutNulls } from '../src/platform/validation/without-nulls.js';
import type { OrderErrorCode, OrderPaymentType, Resolvers } from '../src/generated/graphql.js';
import { orderByPaymentIdLoader } from '../src/orders/order.loaders.js';
import { categoryRequest, imageRequest, receiptRequest, type PaymentType, type ReceiptDocument } from '../src/orders/order.schemas.js';
import { addOrderImage, addOrderReceipt, getOrder, setOrderCategory } from '../src/orders/order.service.js';
import type { OrderView } from '../src/orders/order.view.js';
import { AppError } from '../src/platform/errors/app-error.js';
import { orderIdParam } from '../src/orders/order.schemas.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { paymentOrderView } from '../src/payments/payment-order.queries.js';

const ORDER_ERROR_CODES = userErrorCodes<OrderErrorCode>({
  VALIDATION_FAILED: true,
  RECEIPT_ALREADY_SENT: true,
  IMAGE_ALREADY_EXISTS: true,
});
const paymentType = (type: OrderPaymentType): PaymentType => (type === 'ECOM' ? 'ecom' : 'recurring');

/** The same path rule as REST's `{orderId}`. */
function checkOrderId(orderId: string): string {
  if (!orderIdParam.accepts(orderId)) throw AppError.validation([{ name: 'orderId', reason: orderIdParam.reason }]);
  return orderId;
}

const receiptFields = {
  orderLines: (r: ReceiptDocument) => paymentOrderView(r).orderLines,
  totalAmount: (r: ReceiptDocument) => paymentOrderView(r).totalAmount,
  receiptNumber: (r: ReceiptDocument) => paymentOrderView(r).receiptNumber,
};
const orderFields = {
  paymentType: (o: OrderView) => (o.paymentType === 'ecom' ? 'ECOM' : 'RECURRING') as OrderPaymentType,
  category: (o: OrderView) => o.category,
};

/** Order management in the graph: the same services and request rules as REST. */
export const orderResolvers: Resolvers = {
  Query: {
    order: async (_, args, { request }) => {
      try {
        return await getOrder(request, paymentType(args.paymentType), checkOrderId(args.orderId));
      } catch (error) {
        if (error instanceof AppError && (error.code === 'ORDER_NOT_FOUND' || error.code === 'VALIDATION_FAILED')) return null;
        throw error;
      }
    },
  },
  Mutation: {
    setOrderCategory: (_, { input }, { request }) =>
      withUserErrors(ORDER_ERROR_CODES, async () => {
        const type = paymentType(input.paymentType);
        const orderId = checkOrderId(input.orderId);
        const command = categoryRequest.parse({
          category: input.category ?? null,
          orderDetailsUrl: input.orderDetailsUrl,
          imageId: input.imageId ?? null,
        });
        const categoryId = await setOrderCategory(request, type, orderId, command);
        return { categoryId, order: await getOrder(request, type, orderId) };
      }),
    addOrderImage: (_, { input }, { request }) =>
      withUserErrors(ORDER_ERROR_CODES, async () => ({
        image: await addOrderImage(request, imageRequest.parse({ imageId: input.imageId, src: input.src, type: 'base64' })),
      })),
    addOrderReceipt: (_, { input }, { request }) =>
      withUserErrors(ORDER_ERROR_CODES, async () => {
        const type = paymentType(input.paymentType);
        const orderId = checkOrderId(input.orderId);
        const receiptId = await addOrderReceipt(request, type, orderId, receiptRequest.parse(withoutNulls(input.receipt)));
        return { receiptId, order: await getOrder(request, type, orderId) };
      }),
  },
  Order: orderFields,
  PaymentOrder: {
    category: (o) => o.category,
    orderLines: (o) => (o.receipt ? paymentOrderView(o.receipt).orderLines : []),
    totalAmount: (o) => (o.receipt ? paymentOrderView(o.receipt).totalAmount : null),
    receiptNumber: (o) => (o.receipt ? paymentOrderView(o.receipt).receiptNumber : null),
  },
  OrderReceipt: receiptFields,
  Payment: {
    order: (p, _, { request }) => request.loaders.get(orderByPaymentIdLoader).load(p.id),
  },
};
