import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatMoney } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { Actions } from './actions.js';
import { Deliveries } from './deliveries.js';
import { Order } from './order.js';
import { Shipping } from './shipping.js';
import { PAYMENT, PAYMENT_EVENTS, PAYMENT_EVENTS_PAGE, type PaymentData } from './queries.js';
import { Alert } from './parts.js';
import { outcomeLabel } from './search.js';

/** One payment: its timeline, aggregate and details, and its webhook deliveries; read again at each of its events. */
export function PaymentView({ graph, reference }: { graph: Graph; reference: string }) {
  const [payment, setPayment] = useState<PaymentData | null | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      const data = await graph.query<{ payment: PaymentData | null }>(PAYMENT, { reference });
      // The whole timeline, however long: the rest of the events page by page after the first hundred.
      for (let events = data.payment?.events; events?.pageInfo.hasNextPage;) {
        const next: { payment: { events: PaymentData['events'] } | null } = await graph.query(PAYMENT_EVENTS_PAGE, {
          reference,
          after: events.pageInfo.endCursor,
        });
        if (!next.payment) break;
        data.payment!.events.edges.push(...next.payment.events.edges);
        events = next.payment.events;
      }
      setPayment(data.payment);
      setError(undefined);
      return data.payment?.webhookDeliveries.edges.map((e) => e.node);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return undefined;
    }
  }, [graph, reference]);
  useEffect(() => {
    void load();
    const stop = graph.subscribe(PAYMENT_EVENTS, { reference }, () => void load());
    const stopReconnect = graph.onReconnect(() => void load());
    return () => {
      stop();
      stopReconnect();
    };
  }, [graph, reference, load]);
  if (error) return <Alert error={error} />;
  if (payment === undefined) return <p aria-busy="true">Loading {reference}…</p>;
  if (payment === null) return <p class="error">No payment {reference} in this sales unit.</p>;
  const a = payment.aggregate;
  return (
    <article class="payment" aria-labelledby="payment-title">
      <p>
        <a href="#/">← Live events</a> · <a href="#/search">Search payments</a>
      </p>
      <h2 id="payment-title">
        Payment <span data-testid="payment-reference">{payment.reference}</span>
      </h2>
      <section class="card">
        <dl class="details">
          <Item term="Outcome" testid="payment-outcome">
            {outcomeLabel(payment.outcome)}
          </Item>
          <Item term="State" testid="payment-state">
            {payment.state}
          </Item>
          <Item term="Amount">{formatMoney(payment.amount)}</Item>
          <Item term="Authorized">{formatMoney(a.authorizedAmount)}</Item>
          <Item term="Captured" testid="payment-captured">
            {formatMoney(a.capturedAmount)}
          </Item>
          <Item term="Cancelled">{formatMoney(a.cancelledAmount)}</Item>
          <Item term="Refunded">{formatMoney(a.refundedAmount)}</Item>
          <Item term="Description">{payment.paymentDescription ?? '—'}</Item>
          <Item term="User flow">{payment.userFlow}</Item>
          <Item term="PSP reference">{payment.pspReference}</Item>
          <Item term="Created">{formatDateTime(payment.createdAt)}</Item>
          <Item term="Expires">{formatDateTime(payment.expiresAt)}</Item>
          {payment.metadata.map((m) => (
            <Item key={m.key} term={`Metadata: ${m.key}`}>
              {m.value}
            </Item>
          ))}
        </dl>
      </section>
      <Actions graph={graph} payment={payment} onDone={() => void load()} />
      <section class="card" aria-labelledby="timeline-title">
        <h3 id="timeline-title">Timeline</h3>
        <ol class="timeline" data-testid="timeline">
          {payment.events.edges.map(({ node: e }) => (
            <li key={e.id} data-event={e.name}>
              <time dateTime={e.timestamp}>{formatDateTime(e.timestamp)}</time> <strong>{e.name}</strong> {formatMoney(e.amount)}
              {e.success ? '' : ' (failed)'}
              {e.idempotencyKey ? <span class="muted"> · key {e.idempotencyKey}</span> : null}
            </li>
          ))}
        </ol>
      </section>
      {payment.shippingDetails && <Shipping shipping={payment.shippingDetails} />}
      <Order order={payment.order} />
      <section class="card">
        <Deliveries graph={graph} deliveries={payment.webhookDeliveries.edges.map((e) => e.node)} onChange={load} />
        {payment.webhookDeliveriesPrunedBefore && (
          <p class="muted" data-pruned-before={payment.webhookDeliveriesPrunedBefore}>
            Deliveries created before {formatDateTime(payment.webhookDeliveriesPrunedBefore)} were pruned (they are kept for the retry
            window and a history); the events above are whole.
          </p>
        )}
      </section>
    </article>
  );
}

function Item({ term, testid, children }: { term: string; testid?: string; children: preact.ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd data-testid={testid}>{children}</dd>
    </div>
  );
}
