import { type Checker, type Json, isObject } from '../platform/validation/checker.js';

const CURRENCIES = ['NOK', 'DKK', 'EUR'] as const;
const QUANTITY_UNITS = ['PCS', 'KG', 'KM', 'MINUTE', 'LITRE', 'KWH'] as const;
const BARCODE_FORMATS = ['EAN-13', 'CODE 39', 'CODE 128'] as const;

/** The Order Management `Receipt` (FACTS §4), used by ePayment `receipt` and the order receipt routes. */
export function checkReceipt(check: Checker, receipt: Json, path: string): void {
  const lines = receipt.orderLines;
  if (!Array.isArray(lines) || lines.length === 0) {
    check.fail(`${path}.orderLines`, 'Must be a non-empty array');
  } else {
    lines.forEach((line: unknown, i) => {
      const at = `${path}.orderLines[${i}]`;
      if (!isObject(line)) return check.fail(at, 'Must be an object');
      check.string(line, 'name', `${at}.name`, { required: true, min: 1, max: 2048 });
      check.string(line, 'id', `${at}.id`, { required: true, min: 1, max: 255 });
      check.integer(line, 'totalAmount', `${at}.totalAmount`, { required: true });
      check.integer(line, 'totalAmountExcludingTax', `${at}.totalAmountExcludingTax`, { required: true });
      check.integer(line, 'totalTaxAmount', `${at}.totalTaxAmount`, { required: true });
      check.integer(line, 'taxPercentage', `${at}.taxPercentage`, { required: true, min: 0, max: 100 });
      check.integer(line, 'discount', `${at}.discount`, { min: 0 });
      check.string(line, 'productUrl', `${at}.productUrl`, { max: 2048 });
      check.boolean(line, 'isReturn', `${at}.isReturn`);
      check.boolean(line, 'isShipping', `${at}.isShipping`);
      const unitInfo = check.object(line, 'unitInfo', `${at}.unitInfo`, false);
      if (unitInfo) {
        check.integer(unitInfo, 'unitPrice', `${at}.unitInfo.unitPrice`, { required: true, min: 0 });
        check.string(unitInfo, 'quantity', `${at}.unitInfo.quantity`, {
          required: true,
          max: 10,
          pattern: /^\d+(\.\d{1,8})?$/,
          patternText: 'a decimal number such as 2 or 0.822',
        });
        check.enumeration(unitInfo, 'quantityUnit', `${at}.unitInfo.quantityUnit`, QUANTITY_UNITS, false);
      }
    });
  }
  const bottomLine = check.object(receipt, 'bottomLine', `${path}.bottomLine`, true);
  if (!bottomLine) return;
  const at = `${path}.bottomLine`;
  check.enumeration(bottomLine, 'currency', `${at}.currency`, CURRENCIES, true);
  for (const key of ['tipAmount', 'giftCardAmount', 'totalTax', 'totalDiscount', 'shippingAmount']) {
    check.integer(bottomLine, key, `${at}.${key}`, { min: 0 });
  }
  check.integer(bottomLine, 'totalAmount', `${at}.totalAmount`);
  check.string(bottomLine, 'posId', `${at}.posId`, { max: 255 });
  check.string(bottomLine, 'receiptNumber', `${at}.receiptNumber`, { max: 255 });
  const shipping = check.object(bottomLine, 'shippingInfo', `${at}.shippingInfo`, false);
  if (shipping) {
    for (const key of ['amount', 'amountExcludingTax', 'taxAmount'])
      check.integer(shipping, key, `${at}.shippingInfo.${key}`, { required: true, min: 0 });
    check.integer(shipping, 'taxPercentage', `${at}.shippingInfo.taxPercentage`, { required: true, min: 0, max: 100 });
  }
  const sources = check.object(bottomLine, 'paymentSources', `${at}.paymentSources`, false);
  if (sources) for (const key of ['giftCard', 'card', 'voucher', 'cash']) check.integer(sources, key, `${at}.paymentSources.${key}`);
  const barcode = check.object(bottomLine, 'barcode', `${at}.barcode`, false);
  if (barcode) {
    check.enumeration(barcode, 'format', `${at}.barcode.format`, BARCODE_FORMATS, true);
    check.string(barcode, 'data', `${at}.barcode.data`, { required: true, max: 255 });
  }
}
