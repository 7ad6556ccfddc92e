import { lineTaxOf } from '../orders/order-line-tax.js';
import type { Currency } from './payment.entity.js';

type Json = Record<string, unknown>;
type Money = { value: number; currency: Currency };

export interface PaymentOrderLineView {
  id: string;
  name: string;
  quantity: string | null;
  quantityUnit: string | null;
  unitPrice: Money | null;
  totalAmount: Money;
  totalTaxAmount: Money;
  taxPercentage: number | null;
  taxRate: number | null;
  isReturn: boolean;
  isShipping: boolean;
}

export interface PaymentOrderView {
  orderLines: PaymentOrderLineView[];
  totalAmount: Money | null;
  receiptNumber: string | null;
}

/** A receipt (the Order Management `Receipt`, validated when it was sent) as the graph shows it. */
export function paymentOrderView(receipt: Json): PaymentOrderView {
  const bottomLine = (receipt.bottomLine ?? {}) as Json;
  const currency = bottomLine.currency as Currency;
  const money = (value: unknown): Money | null => (typeof value === 'number' ? { value, currency } : null);
  const lines = Array.isArray(receipt.orderLines) ? (receipt.orderLines as Json[]) : [];
  return {
    orderLines: lines.map((line) => {
      const unitInfo = (line.unitInfo ?? {}) as Json;
      return {
        id: String(line.id),
        name: String(line.name),
        quantity: typeof unitInfo.quantity === 'string' ? unitInfo.quantity : null,
        quantityUnit: typeof unitInfo.quantityUnit === 'string' ? unitInfo.quantityUnit : null,
        unitPrice: money(unitInfo.unitPrice),
        totalAmount: money(line.totalAmount) ?? { value: 0, currency },
        totalTaxAmount: money(line.totalTaxAmount) ?? { value: 0, currency },
        ...lineTaxOf(line),
        isReturn: line.isReturn === true,
        isShipping: line.isShipping === true,
      };
    }),
    totalAmount: money(bottomLine.totalAmount),
    receiptNumber: typeof bottomLine.receiptNumber === 'string' ? bottomLine.receiptNumber : null,
  };
}
