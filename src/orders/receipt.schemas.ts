import Type from 'typebox';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { orderLineTax } from './order-line-tax.js';

const QUANTITY_UNITS = ['PCS', 'KG', 'KM', 'MINUTE', 'LITRE', 'KWH'] as const;
const BARCODE_FORMATS = ['EAN-13', 'CODE 39', 'CODE 128'] as const;
const CURRENCIES = ['NOK', 'DKK', 'EUR'] as const;

const minorUnits = (options: { minimum?: number; maximum?: number } = {}) => Type.Integer(options);

const UnitInfo = Type.Object({
  unitPrice: minorUnits({ minimum: 0 }),
  quantity: Type.String({
    maxLength: 10,
    pattern: '^\\d+(\\.\\d{1,8})?$',
    [REASONS]: { pattern: 'Must match a decimal number such as 2 or 0.822' },
  }),
  quantityUnit: Type.Optional(stringEnum(QUANTITY_UNITS)),
});

const OrderLine = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 2048 }),
  id: Type.String({ minLength: 1, maxLength: 255 }),
  totalAmount: minorUnits(),
  totalAmountExcludingTax: minorUnits(),
  totalTaxAmount: minorUnits(),
  ...orderLineTax,
  discount: Type.Optional(minorUnits({ minimum: 0 })),
  productUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  isReturn: Type.Optional(Type.Boolean()),
  isShipping: Type.Optional(Type.Boolean()),
  unitInfo: Type.Optional(UnitInfo),
});

const ShippingInfo = Type.Object({
  amount: minorUnits({ minimum: 0 }),
  amountExcludingTax: minorUnits({ minimum: 0 }),
  taxAmount: minorUnits({ minimum: 0 }),
  taxPercentage: Type.Integer({ minimum: 0, maximum: 100 }),
});

const PaymentSources = Type.Object({
  giftCard: Type.Optional(minorUnits()),
  card: Type.Optional(minorUnits()),
  voucher: Type.Optional(minorUnits()),
  cash: Type.Optional(minorUnits()),
});

const Barcode = Type.Object({
  format: stringEnum(BARCODE_FORMATS),
  data: Type.String({ maxLength: 255 }),
});

const BottomLine = Type.Object({
  currency: stringEnum(CURRENCIES),
  tipAmount: Type.Optional(minorUnits({ minimum: 0 })),
  giftCardAmount: Type.Optional(minorUnits({ minimum: 0 })),
  totalTax: Type.Optional(minorUnits({ minimum: 0 })),
  totalDiscount: Type.Optional(minorUnits({ minimum: 0 })),
  shippingAmount: Type.Optional(minorUnits({ minimum: 0 })),
  totalAmount: Type.Optional(minorUnits()),
  posId: Type.Optional(Type.String({ maxLength: 255 })),
  receiptNumber: Type.Optional(Type.String({ maxLength: 255 })),
  shippingInfo: Type.Optional(ShippingInfo),
  paymentSources: Type.Optional(PaymentSources),
  barcode: Type.Optional(Barcode),
});

/** The Order Management `Receipt` (FACTS §4), used by ePayment `receipt` and the order receipt routes. */
export const Receipt = Type.Object(
  {
    orderLines: Type.Array(OrderLine, {
      minItems: 1,
      [REASONS]: { type: 'Must be a non-empty array', minItems: 'Must be a non-empty array' },
    }),
    bottomLine: BottomLine,
  },
  { [REASONS]: { required: { orderLines: 'Must be a non-empty array' } } },
);
