import { useState } from 'preact/hooks';
import { formatDateTime, formatMoney } from '../shared/format.js';
import type { FeedStore } from './feed-store.js';
import { useFeedVersion } from './use-feed.js';
import { paymentHref } from './use-hash-route.js';

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
          <select value={state} onChange={(e) => setState(value(e))} data-testid="filter-state">
            <option value="">Any</option>
            {STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Event
          <select value={name} onChange={(e) => setName(value(e))} data-testid="filter-event">
            <option value="">Any</option>
            {EVENTS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Reference
          <input type="search" value={reference} onInput={(e) => setReference(value(e))} data-testid="filter-reference" />
        </label>
      </form>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Reference</th>
            <th scope="col">Amount</th>
            <th scope="col">Payment state</th>
          </tr>
        </thead>
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
