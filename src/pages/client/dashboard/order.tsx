import { formatMoney } from '../shared/format.js';
import type { OrderData } from './queries.js';
import { ColumnHeads } from './parts.js';

/** The order the merchant sent with the payment: its lines and total. */
export function Order({ order }: { order: OrderData | null }) {
  return (
    <section class="card" aria-labelledby="order-title">
      <h3 id="order-title">Order</h3>
      {order?.category && (
        <p data-testid="order-category">
          {order.category.category ?? 'No category'} ·{' '}
          <a href={order.category.orderDetailsUrl} rel="noopener noreferrer">
            order details
          </a>
          {order.images.map((image) => ` · image ${image.imageId} (${image.width}×${image.height})`).join('')}
        </p>
      )}
      {!order ? (
        <p class="empty">No order was sent with this payment.</p>
      ) : order.orderLines.length === 0 ? (
        <p class="empty">No receipt was sent with this order.</p>
      ) : (
        <table class="stacked" data-testid="order">
          <ColumnHeads columns={['Item', 'Quantity', 'Unit price', 'VAT', ['Total', 'num']]} />
          <tbody>
            {order.orderLines.map((line) => (
              <tr key={line.id}>
                <td data-label="Item" class="wrap">
                  {line.name}
                  {line.isShipping ? ' (shipping)' : ''}
                  {line.isReturn ? ' (return)' : ''}
                </td>
                <td data-label="Quantity">{line.quantity ? `${line.quantity} ${line.quantityUnit ?? ''}`.trim() : '—'}</td>
                <td data-label="Unit price">{line.unitPrice ? formatMoney(line.unitPrice) : '—'}</td>
                <td data-label="VAT">{line.taxRate === null ? '—' : `${line.taxRate / 100} %`}</td>
                <td data-label="Total" class="num">
                  {formatMoney(line.totalAmount)}
                </td>
              </tr>
            ))}
          </tbody>
          {order.totalAmount && (
            <tfoot>
              <tr>
                <th scope="row" colSpan={4}>
                  Total{order.receiptNumber ? ` (receipt ${order.receiptNumber})` : ''}
                </th>
                <td class="num">{formatMoney(order.totalAmount)}</td>
              </tr>
            </tfoot>
          )}
        </table>
      )}
    </section>
  );
}
