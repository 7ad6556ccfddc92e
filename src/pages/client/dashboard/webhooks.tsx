import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Graph } from '../shared/graph.js';
import { Deliveries } from './deliveries.js';
import { REDELIVER_FAILED, WEBHOOKS, type WebhookData } from './queries.js';
import { Alert } from './parts.js';

/**
 * The sales unit's webhook registrations, failing ones first and marked: the share of failed attempts over the
 * last 24 hours, failed and pending deliveries first (when each is tried next, or what it waits for), then the
 * latest delivered ones; every failed delivery of a registration can be sent again at once.
 */
export function Webhooks({ graph }: { graph: Graph }) {
  const [webhooks, setWebhooks] = useState<WebhookData[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      const data = await graph.query<{ webhooks: WebhookData[] }>(WEBHOOKS);
      setWebhooks(data.webhooks);
      setError(undefined);
      return data.webhooks.flatMap((w) => [...w.open.edges, ...w.delivered.edges].map((e) => e.node));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return undefined;
    }
  }, [graph]);
  useEffect(() => {
    void load();
  }, [load]);

  const redeliverFailed = async (webhook: WebhookData) => {
    const { redeliverFailedWebhookDeliveries: result } = await graph.query<{
      redeliverFailedWebhookDeliveries: { redelivered: number | null; userErrors: { message: string }[] };
    }>(REDELIVER_FAILED, { id: webhook.id });
    setMessage(result.userErrors[0]?.message ?? `${result.redelivered} failed deliveries to ${webhook.url} scheduled again.`);
    await load();
  };

  if (error) return <Alert error={error} />;
  if (!webhooks) return <p aria-busy="true">Loading webhooks…</p>;
  const ordered = [...webhooks].sort((a, b) => Number(b.failureRate.failing) - Number(a.failureRate.failing));
  return (
    <>
      <h2>Webhook registrations</h2>
      <p>
        <a href="#/attention" data-testid="attention-link">
          Payments that need attention
        </a>
        : webhooks not acknowledged 15 minutes after their event, and expiries nobody carried out.
      </p>
      {message && <p role="status">{message}</p>}
      {webhooks.length === 0 && <p class="empty">No webhooks registered.</p>}
      {ordered.map((w) => {
        const failed = w.open.edges.filter((e) => e.node.status === 'FAILED').length;
        return (
          <section
            key={w.id}
            class={`card webhook ${w.failureRate.failing ? 'failing' : ''}`}
            data-testid="webhook"
            data-failing={String(w.failureRate.failing)}
            aria-labelledby={`webhook-${w.id}`}
          >
            <h3 id={`webhook-${w.id}`} class="wrap">
              {w.failureRate.failing && <span class="tag failed">Failing</span>} {w.url}
            </h3>
            <p class="muted">{w.events.join(', ')}</p>
            <p data-testid="failure-rate">
              {(w.failureRate.rate * 100).toFixed(1)} % of {w.failureRate.attempts} attempts failed in the last 24 hours (
              {w.failureRate.failed} failed)
            </p>
            {failed > 0 && (
              <button type="button" onClick={() => void redeliverFailed(w)} data-testid="redeliver-failed">
                Redeliver all {failed} failed
              </button>
            )}
            <Deliveries
              graph={graph}
              title="Failed and pending deliveries"
              deliveries={w.open.edges.map((e) => e.node)}
              onChange={load}
              showReference
            />
            <Deliveries
              graph={graph}
              title="Latest delivered"
              deliveries={w.delivered.edges.map((e) => e.node)}
              onChange={load}
              showReference
            />
          </section>
        );
      })}
    </>
  );
}
