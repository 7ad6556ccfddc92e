import { randomUUID } from 'node:crypto';
import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { decodeBase64, decodeImage, ImageRejected } from '../platform/images/decode-image.js';
import {
  MAX_IMAGE_BYTES,
  MIN_IMAGE_HEIGHT,
  type CategoryCommand,
  type ImageCommand,
  type PaymentType,
  type ReceiptDocument,
} from './order.schemas.js';
import { ORDER_COLUMNS, orderViewOf, type OrderImageView, type OrderRow, type OrderView } from './order.view.js';
import './order.errors.js';

/**
 * Uploads an image for the caller's sales unit. The data is decoded for real (PNG or JPEG, pixels included): a
 * broken or non-image payload, a height below 167 px or more than 2 MB is a 400 naming `src`. An imageId is never
 * overwritten (409).
 */
export async function addOrderImage(ctx: SalesUnitContext, command: ImageCommand): Promise<OrderImageView> {
  let image;
  try {
    const data = decodeBase64(command.src);
    if (data.length > MAX_IMAGE_BYTES) throw new ImageRejected('Must be at most 2 MB');
    image = decodeImage(data);
    if (image.height < MIN_IMAGE_HEIGHT) throw new ImageRejected(`Must be at least ${MIN_IMAGE_HEIGHT} pixels high`);
  } catch (error) {
    if (error instanceof ImageRejected) throw AppError.validation([{ name: 'src', reason: error.message }]);
    throw error;
  }
  const inserted = await ctx.em.execute<{ image_id: string }[]>(
    `insert into order_image (msn, image_id, format, width, height, bytes, data, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (msn, image_id) do nothing returning image_id`,
    [scoped(ctx).msn, command.imageId, image.format, image.width, image.height, image.bytes, command.src, ctx.clock.now()],
  );
  if (inserted.length === 0) {
    throw new AppError('IMAGE_ALREADY_EXISTS', `The image ${command.imageId} exists and cannot be overwritten`, [
      { name: 'imageId', reason: 'An image with this id exists' },
    ]);
  }
  return { imageId: command.imageId, format: image.format, width: image.width, height: image.height };
}

/** Sets the order's category (a later call replaces it: only the latest is shown); returns the category's id. */
export async function setOrderCategory(
  ctx: SalesUnitContext,
  paymentType: PaymentType,
  orderId: string,
  command: CategoryCommand,
): Promise<string> {
  const { msn } = scoped(ctx);
  if (command.imageId !== null) {
    const [image] = await ctx.em.execute<{ image_id: string }[]>('select image_id from order_image where msn = ? and image_id = ?', [
      msn,
      command.imageId,
    ]);
    if (!image) throw AppError.validation([{ name: 'imageId', reason: 'No image with this id: upload it first' }]);
  }
  const categoryId = randomUUID();
  await ctx.em.execute(
    `insert into order_record (id, msn, payment_type, order_id, category, order_details_url, image_id, category_id, category_updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (msn, payment_type, order_id) do update set category = excluded.category,
       order_details_url = excluded.order_details_url, image_id = excluded.image_id, category_id = excluded.category_id,
       category_updated_at = excluded.category_updated_at`,
    [randomUUID(), msn, paymentType, orderId, command.category, command.orderDetailsUrl, command.imageId, categoryId, ctx.clock.now()],
  );
  return categoryId;
}

/**
 * Sends the order's receipt; once sent it cannot be overwritten (409). For an ePayment order, a receipt given when
 * the payment was created counts as sent.
 */
export async function addOrderReceipt(
  ctx: SalesUnitContext,
  paymentType: PaymentType,
  orderId: string,
  receipt: ReceiptDocument,
): Promise<string> {
  const { msn } = scoped(ctx);
  const sent = () =>
    new AppError('RECEIPT_ALREADY_SENT', 'The order has a receipt; a receipt cannot be overwritten', [
      { name: 'orderId', reason: 'The order has a receipt' },
    ]);
  if (paymentType === 'ecom') {
    const [payment] = await ctx.em.execute<{ has_receipt: boolean }[]>(
      'select receipt is not null as has_receipt from payment where msn = ? and reference = ? limit 1',
      [msn, orderId],
    );
    if (payment?.has_receipt) throw sent();
  }
  const receiptId = randomUUID();
  const stored = await ctx.em.execute<{ receipt_id: string }[]>(
    `insert into order_record (id, msn, payment_type, order_id, receipt, receipt_id, receipt_sent_at) values (?, ?, ?, ?, ?, ?, ?)
     on conflict (msn, payment_type, order_id) do update set receipt = excluded.receipt, receipt_id = excluded.receipt_id,
       receipt_sent_at = excluded.receipt_sent_at
     where order_record.receipt is null
     returning receipt_id`,
    [randomUUID(), msn, paymentType, orderId, JSON.stringify(receipt), receiptId, ctx.clock.now()],
  );
  if (stored.length === 0) throw sent();
  return receiptId;
}

/** The caller's order; another sales unit's order is as missing as one that does not exist (404). */
export async function getOrder(ctx: SalesUnitContext, paymentType: PaymentType, orderId: string): Promise<OrderView> {
  const { msn } = scoped(ctx);
  const [row] = await ctx.em.execute<OrderRow[]>(
    `select ${ORDER_COLUMNS}, p.receipt as payment_receipt
     from (select 1) as one
     left join order_record o on o.msn = ? and o.payment_type = ? and o.order_id = ?
     left join order_image i on i.msn = o.msn and i.image_id = o.image_id
     left join payment p on ? = 'ecom' and p.msn = ? and p.reference = ?`,
    [msn, paymentType, orderId, paymentType, msn, orderId],
  );
  const order = orderViewOf(paymentType, orderId, row);
  if (!order)
    throw new AppError('ORDER_NOT_FOUND', `No order ${orderId} of type ${paymentType}`, [{ name: 'orderId', reason: 'Not found' }]);
  return order;
}

/**
 * The order a deprecated `transactionId` names: a payment of the caller's (by its pspReference or its reference)
 * names its ePayment order (by its pspReference, its id or its reference); any other id is taken as an `ecom` orderId.
 */
export async function orderIdOfTransaction(ctx: SalesUnitContext, transactionId: string): Promise<string> {
  const [payment] = await ctx.em.execute<{ reference: string }[]>(
    `select reference from payment where msn = ? and (reference = ? or psp_reference = ? or id::text = ?)
     order by (reference = ?) desc limit 1`,
    [scoped(ctx).msn, transactionId, transactionId, transactionId, transactionId],
  );
  return payment?.reference ?? transactionId;
}
