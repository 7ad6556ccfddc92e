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
  cancel: ['Cancel', 'Cancelled'],
};

const parseMinor = (major: string) => {
  const value = Number(major.trim().replace(/\s/g, '').replace(',', '.'));
  return Number.isFinite(value) && value > 0 ? Math.round(value * 100) : undefined;
};
const major = (minor: number) => (minor / 100).toFixed(2).replace('.', ',');

/**
 * Capture (full or part), refund and cancel from the payment's page, each offered only while the payment can take it,
 * with its amounts and limits in kroner. Each asks for confirmation first, sends the graph's mutation with a new
 * idempotency key per confirmed click, and says what the service answered; the page reads the payment again when its
 * event arrives.
 */
export function Actions({ graph, payment, onDone }: { graph: Graph; payment: PaymentData; onDone: () => void }) {
  const currency = payment.amount.currency;
  // The page offers only what the service allows now (Payment.allowedActions); the service still decides on a click.
  const allowed = payment.allowedActions;
  const capturable = allowed.capture.value;
  const refundable = allowed.refund.value;
  const cancel = allowed.cancel === 'TERMINATE' ? 'terminate' : allowed.cancel === 'RELEASE' ? 'release' : undefined;
  const limit: Record<'capture' | 'refund', number> = { capture: capturable, refund: refundable };
  const [pending, setPending] = useState<Pending | undefined>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();

  const ask = (operation: Operation, typed?: string) => {
    setOutcome(undefined);
    if (operation === 'cancel') return setPending({ operation });
    const value = parseMinor(typed ?? '');
    if (value === undefined) return setOutcome({ ok: false, text: 'Type an amount above zero in kroner, such as 12,50.' });
    const most = limit[operation];
    if (value > most) {
      return setOutcome({
        ok: false,
        text: `At most ${formatMoney({ value: most, currency })} can be ${VERB[operation][1].toLowerCase()}.`,
      });
    }
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
            {pending.operation !== 'cancel'
              ? `${VERB[pending.operation][0]} ${formatMoney(pending.amount!)} of ${payment.reference}?`
              : cancel === 'terminate'
                ? `Cancel ${payment.reference} before the user approves it? The payment ends.`
                : `Release the ${formatMoney({ value: capturable, currency })} not captured of ${payment.reference}? It can then no longer be captured.`}
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
          {capturable > 0 && (
            <AmountAction operation="capture" left={{ value: capturable, currency }} leftText="reserved and not captured" onAsk={ask} />
          )}
          {refundable > 0 && (
            <AmountAction operation="refund" left={{ value: refundable, currency }} leftText="captured and not refunded" onAsk={ask} />
          )}
          {cancel && (
            <p>
              <button type="button" onClick={() => ask('cancel')} data-testid="cancel">
                {cancel === 'terminate' ? 'Cancel the payment…' : `Release ${formatMoney({ value: capturable, currency })}…`}
              </button>
            </p>
          )}
          {capturable === 0 && refundable === 0 && !cancel && (
            <p class="muted" data-testid="no-actions">
              Nothing is left to capture, refund or cancel.
            </p>
          )}
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

/** One amount-taking action (capture or refund): the box starts at, and follows, what is left to act on. */
function AmountAction({
  operation,
  left,
  leftText,
  onAsk,
}: {
  operation: 'capture' | 'refund';
  left: Money;
  leftText: string;
  onAsk: (operation: Operation, typed: string) => void;
}) {
  const remaining = Math.max(left.value, 0);
  const [typed, setTyped] = useState(major(remaining));
  // What is left changes with every action: the box follows it.
  useEffect(() => setTyped(major(remaining)), [remaining]);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onAsk(operation, typed);
      }}
    >
      <label>
        Amount to {operation} (kr){' '}
        <input
          inputMode="decimal"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          data-testid={`${operation}-amount`}
          size={10}
        />
      </label>{' '}
      <button type="submit">{VERB[operation][0]}…</button>{' '}
      <span class="muted">
        {formatMoney({ value: remaining, currency: left.currency })} {leftText}
      </span>
    </form>
  );
}
