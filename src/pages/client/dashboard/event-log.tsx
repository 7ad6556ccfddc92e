import { useEffect, useState } from 'preact/hooks';
import { formatDateTime } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { EVENT_LOG, STREAM_EVENTS, type StreamEventData } from './queries.js';
import { paymentHref } from './use-hash-route.js';
import { Alert, ColumnHeads } from './parts.js';

const PAGE = 50;
const STREAMS: [string, string][] = [
  ['', 'Every kind'],
  ['payment', 'Payments'],
  ['qr', 'QR check-ins'],
  ['psp-payment', 'PSP payments'],
  ['checkout-session', 'Checkout sessions'],
  ['product-order', 'Product orders'],
  ['sales-unit', 'Sales unit (operator actions)'],
  ['user-consent', 'User consents'],
];

interface EventLogPage {
  events: { edges: { node: StreamEventData }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

/**
 * Every event of the sales unit, of every stream, newest first, from the graph's event connection; then live, from
 * the `streamEvents` subscription resumed after the newest event the first page showed.
 */
export function EventLog({ graph }: { graph: Graph }) {
  const [stream, setStream] = useState('');
  const [rows, setRows] = useState<StreamEventData[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  // What the live subscription resumes after: set by each first page, for the kind of events that page shows.
  const [live, setLive] = useState<{ stream: string; after: string | null } | undefined>();
  const read = async (after: string | null) => {
    try {
      const { events } = await graph.query<EventLogPage>(EVENT_LOG, {
        first: PAGE,
        after,
        filter: stream ? { streamType: stream } : null,
      });
      setRows((shown) => [...(after ? shown : []), ...events.edges.map((e) => e.node)]);
      setNext(events.pageInfo.hasNextPage ? events.pageInfo.endCursor : null);
      if (!after) setLive({ stream, after: events.edges[0]?.node.eventId ?? null });
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  useEffect(() => {
    setLive(undefined);
    void read(null);
    // A new list whenever the stream kind changes.
  }, [graph, stream]);
  useEffect(() => {
    if (!live) return undefined;
    // A reconnect replays from the same event: what is shown already is not shown twice.
    return graph.subscribe<{ streamEvents: StreamEventData }>(
      STREAM_EVENTS,
      { streamType: live.stream || null, after: live.after },
      ({ streamEvents: event }) => setRows((shown) => (shown.some((e) => e.eventId === event.eventId) ? shown : [event, ...shown])),
    );
  }, [graph, live]);
  return (
    <section class="card" aria-labelledby="events-title">
      <h2 id="events-title">All events</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Kind
          <select value={stream} onChange={(e) => setStream(e.currentTarget.value)} data-testid="event-stream">
            {STREAMS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Alert error={error} />
      <table class="stacked">
        <ColumnHeads columns={['When', 'Event', 'Kind', 'Reference', 'Id']} />
        <tbody>
          {rows.map((e) => (
            <tr key={e.eventId} data-testid="log-row" data-stream={e.streamType}>
              <td data-label="When">
                <time dateTime={e.occurredAt}>{formatDateTime(e.occurredAt)}</time>
              </td>
              <td data-label="Event" class="wrap">
                {e.name}
              </td>
              <td data-label="Kind">{e.streamType}</td>
              <td data-label="Reference" class="wrap">
                {e.streamType === 'payment' && e.reference ? (
                  <a href={paymentHref(e.reference)}>{e.reference}</a>
                ) : (
                  (e.reference ?? e.streamId)
                )}
              </td>
              <td data-label="Id" class="num">
                {e.eventId}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !error && <p class="empty">No events.</p>}
      {next && (
        <button type="button" onClick={() => void read(next)}>
          Show older events
        </button>
      )}
    </section>
  );
}
