import { useState } from 'preact/hooks';
import { formatDateTime, formatMoney } from '../shared/format.js';
import type { FeedStore } from './feed-store.js';
import { useFeedVersion } from './use-feed.js';
import { paymentHref } from './use-hash-route.js';
import { AnyOf, ColumnHeads } from './parts.js';

const STATES = ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'];
const EVENTS = ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'CANCELLED', 'CAPTURED', 'REFUNDED', 'TERMINATED'];
const SHOWN = 100;

/** The live feed of payment events, newest first, filtered by payment state, event name and reference. */
export function Feed({ feed }: { feed: FeedStore }) {
  useFeedVersion(feed);
  const [state, setState] = useState('');
  const [name, setName] = useState('');
  const [reference, setReference] = useState('');
  const needle = reference.trim().toLowerCase();
  const rows = feed.items
    .filter((n) => !state || (feed.stateOf(n.payment.reference) ?? n.payment.state) === state)
    .filter((n) => !name || n.event.name === name)
    .filter((n) => !needle || n.event.reference.toLowerCase().includes(needle))
    .slice(0, SHOWN);
  const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
  return (
    <section class="card feed" aria-labelledby="feed-title">
      <h2 id="feed-title">Live events</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()} role="search">
        <label>
          Payment state
          <AnyOf options={STATES} value={state} onChange={(e) => setState(value(e))} data-testid="filter-state" />
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
      <table>
        <ColumnHeads columns={['When', 'Event', 'Reference', 'Amount', 'Payment state']} />
        <tbody aria-live="polite" aria-relevant="additions">
          {rows.map((n) => {
            const current = feed.stateOf(n.payment.reference) ?? n.payment.state;
            return (
              <tr key={n.event.id} data-testid="feed-row" data-reference={n.event.reference} data-event={n.event.name} data-state={current}>
                <td>
                  <time dateTime={n.event.timestamp}>{formatDateTime(n.event.timestamp)}</time>
                </td>
                <td>
                  <span class={`tag ${n.event.success ? '' : 'failed'}`}>{n.event.name}</span>
                </td>
                <td>
                  <a href={paymentHref(n.event.reference)}>{n.event.reference}</a>
                </td>
                <td class="num">{formatMoney(n.event.amount)}</td>
                <td>{current}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && <p class="empty">No events yet.</p>}
    </section>
  );
}
