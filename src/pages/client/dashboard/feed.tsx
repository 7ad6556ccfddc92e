import { useState } from 'preact/hooks';
import { formatDateTime, formatMoney } from '../shared/format.js';
import type { FeedStore } from './feed-store.js';
import { useFeedVersion } from './use-feed.js';
import { paymentHref } from './use-hash-route.js';
import { AnyOf, ColumnHeads } from './parts.js';
import { OUTCOMES, outcomeLabel } from './search.js';

const EVENTS = ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'CANCELLED', 'CAPTURED', 'REFUNDED', 'TERMINATED'];
const SHOWN = 100;

/**
 * The live feed of payment events, newest first, filtered by what became of the payment (its outcome: a captured
 * payment is Captured, though its state stays AUTHORIZED), event name and reference.
 */
export function Feed({ feed }: { feed: FeedStore }) {
  useFeedVersion(feed);
  const [outcome, setOutcome] = useState('');
  const [name, setName] = useState('');
  const [reference, setReference] = useState('');
  const needle = reference.trim().toLowerCase();
  const rows = feed.items
    .filter((n) => !outcome || (feed.outcomeOf(n.payment.reference) ?? n.payment.outcome) === outcome)
    .filter((n) => !name || n.event.name === name)
    .filter((n) => !needle || n.event.reference.toLowerCase().includes(needle))
    .slice(0, SHOWN);
  const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
  return (
    <section class="card feed" aria-labelledby="feed-title">
      <h2 id="feed-title">Live events</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()} role="search">
        <label>
          Outcome
          <select value={outcome} onChange={(e) => setOutcome(value(e))} data-testid="filter-outcome">
            <option value="">Any</option>
            {OUTCOMES.map(([code, label]) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Event
          <AnyOf options={EVENTS} value={name} onChange={(e) => setName(value(e))} data-testid="filter-event" />
        </label>
        <label>
          Reference
          <input type="search" value={reference} onInput={(e) => setReference(value(e))} data-testid="filter-reference" />
        </label>
      </form>
      <table class="stacked">
        <ColumnHeads columns={['When', 'Event', 'Reference', 'Amount', 'Outcome']} />
        <tbody aria-live="polite" aria-relevant="additions">
          {rows.map((n) => {
            const current = feed.stateOf(n.payment.reference) ?? n.payment.state;
            const became = feed.outcomeOf(n.payment.reference) ?? n.payment.outcome;
            return (
              <tr
                key={n.event.id}
                data-testid="feed-row"
                data-reference={n.event.reference}
                data-event={n.event.name}
                data-state={current}
                data-outcome={became}
              >
                <td data-label="When">
                  <time dateTime={n.event.timestamp}>{formatDateTime(n.event.timestamp)}</time>
                </td>
                <td data-label="Event">
                  <span class={`tag ${n.event.success ? '' : 'failed'}`}>{n.event.name}</span>
                </td>
                <td data-label="Reference">
                  <a href={paymentHref(n.event.reference)}>{n.event.reference}</a>
                </td>
                <td data-label="Amount" class="num">
                  {formatMoney(n.event.amount)}
                </td>
                <td data-label="Outcome" data-testid="feed-outcome">
                  {outcomeLabel(became)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && <p class="empty">No events yet.</p>}
    </section>
  );
}
