import type { SearchRow } from './queries.js';

/** A cell as RFC 4180 wants it, and never a formula when a spreadsheet opens the file. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Amounts in minor units, as the API gives them: no locale decides a decimal separator. */
export function paymentsCsv(rows: SearchRow[]): string {
  const header = ['reference', 'state', 'created_at', 'currency', 'amount', 'captured', 'refunded', 'cancelled'];
  const lines = rows.map((p) =>
    [
      p.reference,
      p.state,
      p.createdAt,
      p.amount.currency,
      String(p.amount.value),
      String(p.aggregate.capturedAmount.value),
      String(p.aggregate.refundedAmount.value),
      String(p.aggregate.cancelledAmount.value),
    ]
      .map(cell)
      .join(','),
  );
  return [header.join(','), ...lines].join('\r\n') + '\r\n';
}
