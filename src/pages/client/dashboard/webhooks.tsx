import { useEffect, useState } from 'preact/hooks';
import type { Graph } from '../shared/graph.js';
import { WEBHOOKS, type WebhookData } from './queries.js';

/** The sales unit's webhook registrations with the share of failed attempts over the last 24 hours. */
export function Webhooks({ graph }: { graph: Graph }) {
  const [webhooks, setWebhooks] = useState<WebhookData[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    graph
      .query<{ webhooks: WebhookData[] }>(WEBHOOKS)
      .then((data) => setWebhooks(data.webhooks))
      .catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)));
  }, [graph]);
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!webhooks) return <p aria-busy="true">Loading webhooks…</p>;
  return (
    <section class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook registrations</h2>
      {webhooks.length === 0 && <p class="empty">No webhooks registered.</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Attempts (24 h)</th>
            <th scope="col">Failure rate</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((w) => (
            <tr key={w.id} data-testid="webhook">
              <td class="wrap">{w.url}</td>
              <td class="wrap">{w.events.join(', ')}</td>
              <td class="num">{w.failureRate.attempts}</td>
              <td class="num" data-testid="failure-rate">
                {(w.failureRate.rate * 100).toFixed(1)} % ({w.failureRate.failed} failed)
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
