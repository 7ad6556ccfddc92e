import { useState } from 'preact/hooks';
import { formatDateTime } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { REDELIVER, type DeliveryData } from './queries.js';

/** After a redelivery, how often and how long the page reads the payment again to show the new attempt. */
const FOLLOW_UP_MS = 400;
const FOLLOW_UPS = 25;

interface RedeliverResult {
  redeliverWebhookDelivery: { delivery: { id: string; status: string } | null; userErrors: { code: string; message: string }[] };
}

/** A payment's webhook deliveries with every attempt; a pending or failed one can be sent again now. */
export function Deliveries({
  graph,
  deliveries,
  onChange,
}: {
  graph: Graph;
  deliveries: DeliveryData[];
  /** Reads the payment again; resolves with its deliveries as they are now. */
  onChange: () => Promise<DeliveryData[] | undefined>;
}) {
  const [message, setMessage] = useState<string | undefined>();
  const redeliver = async (delivery: DeliveryData) => {
    try {
      const result = await graph.query<RedeliverResult>(REDELIVER, { id: delivery.id });
      const failure = result.redeliverWebhookDelivery.userErrors[0];
      setMessage(failure ? failure.message : 'Redelivery scheduled.');
      if (failure) return;
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
      return;
    }
    // An attempt is no payment event, so no subscription announces it: the page follows the delivery up for a
    // bounded while, until its new attempt shows.
    for (let i = 0; i < FOLLOW_UPS; i++) {
      const now = (await onChange())?.find((d) => d.id === delivery.id);
      const attempts = now?.attempts.edges ?? [];
      if (!now || (attempts.length > delivery.attempts.edges.length && attempts.every((a) => a.node.state !== 'IN_FLIGHT'))) return;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_UP_MS));
    }
  };
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">Webhook deliveries</h3>
      {message && <p role="status">{message}</p>}
      {deliveries.length === 0 && <p class="empty">No webhook deliveries.</p>}
      {deliveries.map((d) => (
        <div class="delivery" key={d.id} data-testid="delivery" data-status={d.status}>
          <p>
            <strong>{d.eventName}</strong> · {d.status} · {d.attemptCount} attempt(s)
            {d.lastStatusCode !== null ? ` · last status ${d.lastStatusCode}` : ''}
            {d.status !== 'DELIVERED' && (
              <button type="button" class="small" onClick={() => void redeliver(d)}>
                Redeliver
              </button>
            )}
          </p>
          <table>
            <caption class="visually-hidden">Attempts of the {d.eventName} delivery</caption>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">State</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {d.attempts.edges.map(({ node: a }, i) => (
                <tr key={i} data-testid="attempt">
                  <td>{formatDateTime(a.attemptedAt)}</td>
                  <td>{a.state}</td>
                  <td>{a.statusCode ?? '—'}</td>
                  <td>{a.durationMs === null ? '—' : `${a.durationMs} ms`}</td>
                  <td>{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}
