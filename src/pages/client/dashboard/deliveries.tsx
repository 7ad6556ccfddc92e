import { useState } from 'preact/hooks';
import { formatDateTime } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { REDELIVER, type AttemptData, type DeliveryData } from './queries.js';
import { paymentHref } from './use-hash-route.js';
import { ColumnHeads } from './parts.js';

/** After a redelivery, how often and how long the page reads the payment again to show the new attempt. */
const FOLLOW_UP_MS = 400;
const FOLLOW_UPS = 25;

interface RedeliverResult {
  redeliverWebhookDelivery: { delivery: { id: string; status: string } | null; userErrors: { code: string; message: string }[] };
}

const OUTCOME: Record<AttemptData['outcome'], string> = {
  IN_FLIGHT: 'Sending…',
  SUCCEEDED: 'Succeeded',
  FAILED: 'Failed',
  INTERRUPTED: 'Interrupted',
};

/**
 * Webhook deliveries with where they go and every attempt's outcome, when a pending one is tried next, and why it
 * waits; a pending or failed one can be sent again now.
 */
export function Deliveries({
  graph,
  deliveries,
  onChange,
  title = 'Webhook deliveries',
  showReference = false,
}: {
  graph: Graph;
  deliveries: DeliveryData[];
  /** Reads the deliveries again; resolves with them as they are now. */
  onChange: () => Promise<DeliveryData[] | undefined>;
  title?: string;
  showReference?: boolean;
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
    <section class="deliveries" aria-label={title}>
      <h3>{title}</h3>
      {message && <p role="status">{message}</p>}
      {deliveries.length === 0 && <p class="empty">No webhook deliveries.</p>}
      {deliveries.map((d) => (
        <div class="delivery" key={d.id} data-testid="delivery" data-status={d.status}>
          <p>
            <strong>{d.eventName ?? d.eventType}</strong>
            {showReference && d.reference && (
              <>
                {' '}
                of <a href={paymentHref(d.reference)}>{d.reference}</a>
              </>
            )}{' '}
            · <span class={`tag ${d.status === 'DELIVERED' ? '' : 'failed'}`}>{d.status}</span> · {d.attemptCount} attempt(s)
            {d.lastStatusCode !== null ? ` · last status ${d.lastStatusCode}` : ''}
            {d.status !== 'DELIVERED' && (
              <button type="button" class="small" onClick={() => void redeliver(d)}>
                Redeliver
              </button>
            )}
          </p>
          <p class="muted">
            To <span class="wrap">{d.targetUrl}</span>
            {d.status === 'PENDING' &&
              (d.waitingForEarlierEvent ? (
                <span data-testid="waiting"> · waiting for an earlier event of this payment to be delivered</span>
              ) : d.nextAttemptAt ? (
                <span data-testid="next-attempt">
                  {' '}
                  · next attempt <time dateTime={d.nextAttemptAt}>{formatDateTime(d.nextAttemptAt)}</time>
                </span>
              ) : null)}
            {d.deliveredAt && <> · delivered {formatDateTime(d.deliveredAt)}</>}
          </p>
          <table class="stacked">
            <caption class="visually-hidden">Attempts of the {d.eventName ?? d.eventType} delivery</caption>
            <ColumnHeads columns={['At', 'Outcome', 'Status', 'Duration', 'Error']} />
            <tbody>
              {d.attempts.edges.map(({ node: a }, i) => (
                <tr key={i} data-testid="attempt" data-outcome={a.outcome}>
                  <td data-label="At">{formatDateTime(a.attemptedAt)}</td>
                  <td data-label="Outcome">
                    <span class={`tag ${a.outcome === 'SUCCEEDED' ? '' : 'failed'}`}>{OUTCOME[a.outcome]}</span>
                  </td>
                  <td data-label="Status">{a.statusCode ?? '—'}</td>
                  <td data-label="Duration">{a.durationMs === null ? '—' : `${a.durationMs} ms`}</td>
                  <td data-label="Error">{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}
