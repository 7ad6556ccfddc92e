import type { Services } from '../platform/context.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { addDays, osloDate, osloMidnight } from './business-days.js';
import { FIRST_PAYOUT_ID } from './ledger.rules.js';

/**
 * The daily payout: closes every ledger date that has ended (in Oslo, by the ledger's time), once. A ledger's
 * time is that of its merchant's sales units: the furthest of their test clocks, so a unit's advance pays out
 * its merchant's ledger and no other (in production, the real time). Closing date D pays out everything not yet
 * paid out whose ledger date is D or earlier (refunds are deducted on their own ledger date): when that balance is
 * positive, a `payout` row of minus the balance, with the ledger's next payout id; when it is zero or negative,
 * nothing, and the rows carry forward into the next date. Each ledger is closed in its own transaction under its
 * row lock, so the job is idempotent and safe on several instances. A ledger another run is closing is waited
 * for, not skipped: once this returns, every ledger is closed through yesterday, which the test clock relies on
 * before it answers.
 */
export async function closeLedgerDates(services: Services): Promise<number> {
  const latest = Math.max(...services.testClocks.timelines().map((timeline) => timeline.now.getTime()));
  const em = forkEm(services.orm);
  const due = await em.execute<{ id: string | number; closed_through: string; msns: string | null }[]>(
    `select l.id, l.closed_through::text as closed_through, string_agg(u.msn, ',') as msns
     from ledger l left join ledger_sales_unit u on u.ledger_id = l.id
     where l.closed_through < ? group by l.id order by l.id`,
    [addDays(osloDate(new Date(latest)), -1)],
  );
  let payouts = 0;
  for (const ledger of due) {
    const now = ledgerNow(services, ledger.msns ? ledger.msns.split(',') : []);
    const through = addDays(osloDate(now), -1);
    if (ledger.closed_through >= through) continue;
    payouts += await em.transactional((tx) => closeLedger(tx, Number(ledger.id), through, now));
  }
  return payouts;
}

function ledgerNow(services: Services, msns: string[]): Date {
  if (msns.length === 0) return services.clock.now();
  return new Date(Math.max(...msns.map((msn) => services.testClocks.of(msn).now().getTime())));
}

async function closeLedger(em: Em, ledgerId: number, through: string, now: Date): Promise<number> {
  const locked = await em.execute<{ closed_through: string; last_payout: string | number | null; currency: string }[]>(
    `select closed_through::text as closed_through, last_payout, currency from ledger where id = ? and closed_through < ? for update`,
    [ledgerId, through],
  );
  const ledger = locked[0];
  if (!ledger) return 0;
  let lastPayout = ledger.last_payout === null ? null : Number(ledger.last_payout);
  let payouts = 0;
  for (let date = addDays(ledger.closed_through, 1); date <= through; date = addDays(date, 1)) {
    const payoutId = lastPayout === null ? FIRST_PAYOUT_ID : lastPayout + 1;
    // One statement marks the rows and sums them, so a row committed meanwhile is either in both or in neither.
    const [marked] = await em.execute<{ total: string | number | null; rows: string | number }[]>(
      `with paid as (
         update ledger_transaction set payout_id = ?
         where ledger_id = ? and payout_id is null and ledger_date <= ?
         returning ledger_amount)
       select coalesce(sum(ledger_amount), 0) as total, count(*) as rows from paid`,
      [payoutId, ledgerId, date],
    );
    if (Number(marked?.rows ?? 0) === 0) continue;
    const total = Number(marked?.total ?? 0);
    if (total <= 0) {
      // Nothing to pay out: the rows stay open and carry the balance into the next date.
      await em.execute(`update ledger_transaction set payout_id = null where ledger_id = ? and payout_id = ?`, [ledgerId, payoutId]);
      continue;
    }
    await em.execute(
      `insert into ledger_transaction
         (ledger_id, transaction_type, occurred_at, ledger_date, order_id, payment_id, recipient_handle, currency, gross_amount, fee, ledger_amount, payout_id)
       values (?, 'payout', ?, ?, ?, null, null, ?, ?, 0, ?, ?)`,
      [ledgerId, now, date, String(payoutId), ledger.currency.trim(), -total, -total, payoutId],
    );
    lastPayout = payoutId;
    payouts += 1;
  }
  // Payout ids run from FIRST_PAYOUT_ID, so the first payout is that one as soon as there is any.
  await em.execute(`update ledger set closed_through = ?, last_payout = ?, first_payout = ? where id = ?`, [
    through,
    lastPayout,
    lastPayout === null ? null : FIRST_PAYOUT_ID,
    ledgerId,
  ]);
  return payouts;
}

/**
 * When the unit's ledgers next pay something out: at the end of the first open ledger date that has rows not yet paid
 * out (a capture, a refund's deduction two business days on). Dates without new rows close with no payout whenever
 * they close, so the test clock's advance need not stop at them.
 */
export async function nextLedgerPayout(services: Services, msn: string): Promise<Date | null> {
  const [row] = await forkEm(services.orm).execute<{ first: string | null }[]>(
    `select min(t.ledger_date)::text as first from ledger_sales_unit u
     join ledger l on l.id = u.ledger_id
     join ledger_transaction t on t.ledger_id = l.id and t.payout_id is null and t.ledger_date > l.closed_through
     where u.msn = ?`,
    [msn],
  );
  return row?.first ? osloMidnight(addDays(row.first, 1)) : null;
}
