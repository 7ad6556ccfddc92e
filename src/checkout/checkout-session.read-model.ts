import type { Em } from '../platform/db/orm.js';
import type { SessionPayment } from './checkout-session.view.js';

type Row = Record<string, unknown>;

/**
 * The payments of sessions, read live (a capture through ePayment shows at once in `paymentDetails`): one
 * statement for any number of sessions, always within the caller's sales unit.
 */
export async function readSessionPayments(em: Em, msn: string, paymentIds: readonly string[]): Promise<SessionPayment[]> {
  if (paymentIds.length === 0) return [];
  const rows = await em.execute<Row[]>(
    `select id, state, expires_at, currency, amount, authorized_amount, captured_amount, cancelled_amount, refunded_amount
     from payment where msn = ? and id in (${paymentIds.map(() => '?').join(', ')})`,
    [msn, ...paymentIds],
  );
  const byId = new Map(rows.map((row) => [String(row.id), toSessionPayment(row)]));
  return paymentIds.map((id) => byId.get(id)).filter((p): p is SessionPayment => p !== undefined);
}

function toSessionPayment(row: Row): SessionPayment {
  return {
    id: String(row.id),
    state: row.state as SessionPayment['state'],
    expiresAt: new Date(row.expires_at as string | Date),
    currency: row.currency as SessionPayment['currency'],
    amount: Number(row.amount),
    authorizedAmount: Number(row.authorized_amount),
    capturedAmount: Number(row.captured_amount),
    cancelledAmount: Number(row.cancelled_amount),
    refundedAmount: Number(row.refunded_amount),
  };
}
