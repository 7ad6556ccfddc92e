import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatMoney, type Money } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { Alert, ColumnHeads } from './parts.js';
import { ATTENTION, REDELIVER } from './queries.js';
import { paymentHref } from './use-hash-route.js';

const PAGE_SIZE = 50;

type Reason = 'AUTHORIZED_WEBHOOK_NOT_DELIVERED' | 'CAPTURE_WEBHOOK_NOT_DELIVERED' | 'EXPIRY_OVERDUE';

interface Cause {
  reason: Reason;
  since: string;
  delivery: { id: string; status: string; attemptCount: number; lastStatusCode: number | null; targetUrl: string } | null;
}

interface Row {
  payment: { reference: string; state: string; amount: Money };
  causes: Cause[];
}

interface AttentionPage {
  paymentsNeedingAttention: { edges: { node: Row }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

const REASON: Record<Reason, string> = {
  AUTHORIZED_WEBHOOK_NOT_DELIVERED: 'Authorization webhook not delivered',
  CAPTURE_WEBHOOK_NOT_DELIVERED: 'Capture webhook not delivered',
  EXPIRY_OVERDUE: 'Past its expiry, not yet expired',
};

/**
 * Payments of the sales unit that need someone to look at them, newest first: a webhook the merchant's order waits
 * for that its receiver has not acknowledged, or an expiry nobody carried out. A delivery can be sent again from here.
 */
export function Attention({ graph }: { graph: Graph }) {
  const [rows, setRows] = useState<Row[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<string | undefined>();

  const load = useCallback(
    async (after: string | null = null) => {
      try {
        const { paymentsNeedingAttention: page } = await graph.query<AttentionPage>(ATTENTION, { first: PAGE_SIZE, after });
        const fresh = page.edges.map((e) => e.node);
        setRows((shown) => (after && shown ? [...shown, ...fresh] : fresh));
        setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
        setError(undefined);
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : String(failure));
      }
    },
    [graph],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const redeliver = async (delivery: NonNullable<Cause['delivery']>) => {
    try {
      const { redeliverWebhookDelivery: result } = await graph.query<{
        redeliverWebhookDelivery: { userErrors: { message: string }[] };
      }>(REDELIVER, { id: delivery.id });
      setMessage(result.userErrors[0]?.message ?? `Redelivery to ${delivery.targetUrl} scheduled.`);
    } catch (failure) {
      setMessage(failure instanceof Error ? failure.message : String(failure));
    }
    await load();
  };

  if (error) return <Alert error={error} />;
  if (!rows) return <p aria-busy="true">Loading payments that need attention…</p>;
  return (
    <section aria-labelledby="attention-heading">
      <h2 id="attention-heading">Payments that need attention</h2>
      {message && <p role="status">{message}</p>}
      {rows.length === 0 ? (
        <p class="empty">No payment needs attention.</p>
      ) : (
        <table data-testid="attention">
          <caption class="visually-hidden">Payments that need attention, newest first</caption>
          <ColumnHeads columns={['Payment', 'State', ['Amount', 'num'], 'Reason', 'Since', 'Webhook']} />
          <tbody>
            {rows.flatMap((row) =>
              row.causes.map((cause, i) => (
                <tr key={`${row.payment.reference}-${i}`} data-testid="attention-row" data-reason={cause.reason}>
                  <td>
                    <a href={paymentHref(row.payment.reference)}>{row.payment.reference}</a>
                  </td>
                  <td>{row.payment.state}</td>
                  <td class="num">{formatMoney(row.payment.amount)}</td>
                  <td>{REASON[cause.reason]}</td>
                  <td>
                    <time dateTime={cause.since}>{formatDateTime(cause.since)}</time>
                  </td>
                  <td>
                    {cause.delivery && (
                      <>
                        <span class="tag failed">{cause.delivery.status}</span> · {cause.delivery.attemptCount} attempt(s)
                        {cause.delivery.lastStatusCode !== null ? ` · last status ${cause.delivery.lastStatusCode}` : ''}{' '}
                        <button type="button" class="small" onClick={() => void redeliver(cause.delivery!)}>
                          Redeliver
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More
        </button>
      )}
    </section>
  );
}
