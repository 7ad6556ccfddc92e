import { useEffect, useState } from 'preact/hooks';
import { formatMoney, type Money } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { MODIFY, type ModifyData, type PaymentData } from './queries.js';

type Operation = keyof typeof MODIFY;

interface Pending {
  operation: Operation;
  amount?: Money;
}

const VERB: Record<Operation, [string, string]> = {
  capture: ['Capture', 'Captured'],
  refund: ['Refund', 'Refunded'],
  cancel: ['Cancel the rest', 'Cancelled'],
};

const parseMinor = (major: string) => {
  const value = Number(major.trim().replace(/\s/g, '').replace(',', '.'));
  return Number.isFinite(value) && value > 0 ? Math.round(value * 100) : undefined;
};
const major = (minor: number) => (minor / 100).toFixed(2).replace('.', ',');

/**
 * Capture (full or part), refund and cancel from the payment's page. Each asks for confirmation first, sends the
 * graph's mutation with a new idempotency key per confirmed click, and says what the service answered; the page
 * reads the payment again when its event arrives. The service decides what is allowed: nothing is refused here
 * that the API would take.
 */
export function Actions({ graph, payment, onDone }: { graph: Graph; payment: PaymentData; onDone: () => void }) {
  const a = payment.aggregate;
  const currency = payment.amount.currency;
  const capturable = a.authorizedAmount.value - a.capturedAmount.value - a.cancelledAmount.value;
  const refundable = a.capturedAmount.value - a.refundedAmount.value;
  const [captureAmount, setCaptureAmount] = useState(major(Math.max(capturable, 0)));
  const [refundAmount, setRefundAmount] = useState(major(Math.max(refundable, 0)));
  // What is left to capture or refund changes with every action: the boxes follow it.
  useEffect(() => setCaptureAmount(major(Math.max(capturable, 0))), [capturable]);
  useEffect(() => setRefundAmount(major(Math.max(refundable, 0))), [refundable]);
  const [pending, setPending] = useState<Pending | undefined>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();

  const ask = (operation: Operation, typed?: string) => {
    setOutcome(undefined);
    if (operation === 'cancel') return setPending({ operation });
    const value = parseMinor(typed ?? '');
    if (value === undefined) return setOutcome({ ok: false, text: 'Type an amount above zero, such as 12,50.' });
    setPending({ operation, amount: { value, currency } });
  };

  const confirm = async () => {
    if (!pending) return;
    const idempotencyKey = crypto.randomUUID();
    const input: Record<string, unknown> = { idempotencyKey, reference: payment.reference };
    if (pending.amount) input.amount = pending.amount;
    setBusy(true);
    try {
      const { result } = await graph.query<ModifyData>(MODIFY[pending.operation], { input });
      const error = result.userErrors[0];
      setOutcome(
        error
          ? { ok: false, text: `Refused (${error.code}): ${error.message}` }
          : {
              ok: true,
              text: `${VERB[pending.operation][1]}${pending.amount ? ` ${formatMoney(pending.amount)}` : ''} (key ${idempotencyKey}).`,
            },
      );
    } catch (failure) {
      setOutcome({ ok: false, text: failure instanceof Error ? failure.message : String(failure) });
    } finally {
      setBusy(false);
      setPending(undefined);
      onDone();
    }
  };

  return (
    <section class="card actions" aria-labelledby="actions-title">
      <h3 id="actions-title">Act on this payment</h3>
      {pending ? (
        <div role="alertdialog" aria-labelledby="confirm-text" class="confirm" data-testid="confirm">
          <p id="confirm-text">
            {pending.operation === 'cancel'
              ? `Cancel what is left of the reservation of ${payment.reference}? The user's money is released.`
              : `${VERB[pending.operation][0]} ${formatMoney(pending.amount!)} of ${payment.reference}?`}
          </p>
          <button type="button" onClick={() => void confirm()} disabled={busy} data-testid="confirm-yes">
            {busy ? 'Sending…' : `Yes, ${VERB[pending.operation][0].toLowerCase()}`}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setPending(undefined)} disabled={busy}>
            No, go back
          </button>
        </div>
      ) : (
        <div class="action-rows">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              ask('capture', captureAmount);
            }}
          >
            <label>
              Amount to capture (kr){' '}
              <input
                inputMode="decimal"
                value={captureAmount}
                onInput={(e) => setCaptureAmount(e.currentTarget.value)}
                data-testid="capture-amount"
                size={10}
              />
            </label>{' '}
            <button type="submit">Capture…</button>{' '}
            <span class="muted">{formatMoney({ value: Math.max(capturable, 0), currency })} reserved and not captured</span>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              ask('refund', refundAmount);
            }}
          >
            <label>
              Amount to refund (kr){' '}
              <input
                inputMode="decimal"
                value={refundAmount}
                onInput={(e) => setRefundAmount(e.currentTarget.value)}
                data-testid="refund-amount"
                size={10}
              />
            </label>{' '}
            <button type="submit">Refund…</button>{' '}
            <span class="muted">{formatMoney({ value: Math.max(refundable, 0), currency })} captured and not refunded</span>
          </form>
          <p>
            <button type="button" onClick={() => ask('cancel')}>
              Cancel…
            </button>
          </p>
        </div>
      )}
      {outcome && (
        <p role="status" class={outcome.ok ? 'ok' : 'error'} data-testid="action-result">
          {outcome.text}
        </p>
      )}
    </section>
  );
}
