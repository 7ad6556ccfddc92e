import DataLoader from 'dataloader';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { ORDER_COLUMNS, orderViewOf, type OrderRow, type OrderView } from './order.view.js';

/**
 * The order of each payment on a page (the `ecom` order whose orderId is its reference, with the receipt given at
 * create), in one statement. The payment ids come from the caller's scoped reads.
 */
export const orderByPaymentIdLoader = defineLoader(
  'orderByPaymentIdLoader',
  (em) =>
    new DataLoader<string, OrderView | null>(async (paymentIds) => {
      const rows = await em.execute<(OrderRow & { payment_id: string; reference: string })[]>(
        `select p.id as payment_id, p.reference, p.receipt as payment_receipt, ${ORDER_COLUMNS}
         from payment p
         left join order_record o on o.msn = p.msn and o.payment_type = 'ecom' and o.order_id = p.reference
         left join order_image i on i.msn = o.msn and i.image_id = o.image_id
         where p.id in (${paymentIds.map(() => '?').join(', ')})`,
        [...paymentIds],
      );
      const byPayment = new Map(rows.map((row) => [row.payment_id, orderViewOf('ecom', row.reference, row) ?? null]));
      return paymentIds.map((id) => byPayment.get(id) ?? null);
    }),
);
