import { formatDateTime, formatMoney, type Money } from '../shared/format.js';
import type { OverviewData } from './queries.js';

import { OUTCOMES } from './search.js';

function sum(list: Money[] | undefined): string {
  if (!list || list.length === 0) return formatMoney({ value: 0, currency: 'NOK' });
  return list.map(formatMoney).join(' + ');
}

/**
 * Payments created today (the sales unit clock's day) by outcome, counted on the server (a cancelled payment is
 * cancelled, not reserved), and money captured and refunded today.
 */
export function Totals({ data }: { data: OverviewData['paymentTotals'] | undefined }) {
  const count = (outcome: string) => data?.byOutcome.find((o) => o.outcome === outcome)?.count ?? 0;
  return (
    <section class="card totals" aria-labelledby="totals-title">
      <h2 id="totals-title">
        Today{' '}
        {data && (
          <time class="muted" dateTime={data.asOf} data-testid="totals-as-of">
            {formatDateTime(data.since)} – {formatDateTime(data.asOf)}
          </time>
        )}
      </h2>
      <dl class="states">
        {OUTCOMES.map(([outcome, label]) => (
          <div key={outcome}>
            <dt>{label}</dt>
            <dd data-testid={`total-${outcome}`}>{data ? count(outcome) : '…'}</dd>
          </div>
        ))}
      </dl>
      <dl class="money">
        <div>
          <dt>Captured</dt>
          <dd data-testid="captured-today">{data ? sum(data.captured) : '…'}</dd>
        </div>
        <div>
          <dt>Refunded</dt>
          <dd data-testid="refunded-today">{data ? sum(data.refunded) : '…'}</dd>
        </div>
      </dl>
    </section>
  );
}
