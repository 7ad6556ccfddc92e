import { formatMoney, type Money } from '../shared/format.js';
import type { OverviewData } from './queries.js';

const STATES = ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'];

function sum(list: Money[] | undefined): string {
  if (!list || list.length === 0) return formatMoney({ value: 0, currency: 'NOK' });
  return list.map(formatMoney).join(' + ');
}

/** Payments created today by state, and money captured and refunded today. */
export function Totals({ data }: { data: OverviewData['paymentTotals'] | undefined }) {
  const count = (state: string) => data?.byState.find((s) => s.state === state)?.count ?? 0;
  return (
    <section class="card totals" aria-labelledby="totals-title">
      <h2 id="totals-title">Today</h2>
      <dl class="states">
        {STATES.map((state) => (
          <div key={state}>
            <dt>{state}</dt>
            <dd data-testid={`total-${state}`}>{data ? count(state) : '…'}</dd>
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
