import type { OrderCategoryName, PaymentType, ReceiptDocument } from './order.schemas.js';

export interface OrderCategoryView {
  category: OrderCategoryName | null;
  orderDetailsUrl: string;
  imageId: string | null;
}

export interface OrderImageView {
  imageId: string;
  format: 'png' | 'jpeg';
  width: number;
  height: number;
}

/** An order as both faces show it: its latest category, the image the category names, and its receipt. */
export interface OrderView {
  paymentType: PaymentType;
  orderId: string;
  category: OrderCategoryView | null;
  images: OrderImageView[];
  receipt: ReceiptDocument | null;
}

/** The columns an order is read from (order_record joined with its image and, for ecom, the payment). */
export interface OrderRow {
  category: string | null;
  order_details_url: string | null;
  image_id: string | null;
  receipt: unknown;
  payment_receipt: unknown;
  image_format: string | null;
  image_width: number | null;
  image_height: number | null;
}

function json(value: unknown): ReceiptDocument | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as ReceiptDocument;
}

/** The order of one row; undefined when there is none (no category, no receipt, no payment receipt). */
export function orderViewOf(paymentType: PaymentType, orderId: string, row: OrderRow | undefined): OrderView | undefined {
  if (!row) return undefined;
  // The receipt sent to order management, else the one given when the payment was created (WALLET).
  const receipt = json(row.receipt) ?? json(row.payment_receipt);
  const category =
    row.order_details_url !== null
      ? { category: row.category as OrderCategoryName | null, orderDetailsUrl: row.order_details_url, imageId: row.image_id }
      : null;
  if (!category && !receipt) return undefined;
  const images: OrderImageView[] =
    row.image_id && row.image_format
      ? [
          {
            imageId: row.image_id,
            format: row.image_format as 'png' | 'jpeg',
            width: Number(row.image_width),
            height: Number(row.image_height),
          },
        ]
      : [];
  return { paymentType, orderId, category, images, receipt };
}

export const ORDER_COLUMNS = `o.category, o.order_details_url, o.image_id, o.receipt,
  i.format as image_format, i.width as image_width, i.height as image_height`;
