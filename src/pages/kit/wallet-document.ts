import type { PageAssets } from './assets.js';
import { escapeHtml } from './html.js';
import { renderPage } from './page-shell.js';
import { formatAmount } from './money-format.js';
import { paymentOutcome } from './payment-outcome.js';

export interface WalletMessage {
  kind: 'ok' | 'error';
  text: string;
}

/** What every wallet page shows of what is being paid: who asks, how much, what for, and where it stands. */
export interface PaymentSummary {
  merchantName: string;
  amount: number;
  currency: string;
  description: string | null;
  state: string;
  /** Said under the amount, where it is not yet the whole of what is paid (a checkout's shipping still to choose). */
  amountNote?: string;
  /** The amount follows the shipping option the buyer selects (the page's script; the option carries its total). */
  amountFollowsShipping?: boolean;
}

export function paymentSummary(payment: PaymentSummary): string {
  const outcome = paymentOutcome(payment.state);
  return `<section class="summary tone-${outcome.tone}" data-testid="summary" data-tone="${outcome.tone}" aria-labelledby="merchant">
  <h2 class="merchant" id="merchant">${escapeHtml(payment.merchantName)}</h2>
  <p class="amount" data-testid="amount"${payment.amountFollowsShipping ? ' data-total-with-shipping' : ''}>${escapeHtml(formatAmount(payment.amount, payment.currency))}</p>
  ${payment.amountNote ? `<p class="amount-note" data-testid="amount-note">${escapeHtml(payment.amountNote)}</p>` : ''}
  ${payment.description ? `<p class="description" data-testid="description">${escapeHtml(payment.description)}</p>` : ''}
  <p class="state" data-testid="state" data-state="${escapeHtml(payment.state)}" role="status" aria-live="polite">Status: ${escapeHtml(outcome.status)}</p>
</section>
<p class="outcome" data-testid="outcome"${outcome.sentence ? '' : ' hidden'}>${escapeHtml(outcome.sentence ?? '')}</p>`;
}

/** The page's heading: what happened once the payment is decided, `waiting` (the page's own ask) until then. */
export function outcomeHeading(state: string, waiting: string): string {
  return paymentOutcome(state).heading ?? waiting;
}

export function walletMessage(message: WalletMessage | undefined): string {
  if (!message) return '';
  return `<p class="message ${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${escapeHtml(message.text)}</p>`;
}

/**
 * A wallet page: the shared layout and styles, and the script that keeps the shown state live. `live` is what the
 * script needs to ask for the state (`liveStatePage`: where, and the state shown; the token goes in a body, never
 * in a URL).
 */
export function walletDocument(
  assets: PageAssets,
  page: { title: string; main: string; live?: { endpoint: string; state: string }; brand?: string },
): string {
  return renderPage(assets, {
    title: page.title,
    bundle: 'wallet',
    bodyClass: 'wallet',
    body: `<header class="bar"><p class="brand">${escapeHtml(page.brand ?? 'Paygraph test wallet')}</p></header>
<main id="main">
<h1 data-testid="heading">${escapeHtml(page.title)}</h1>
${page.main}
</main>`,
    data: page.live,
  });
}

/** The wallet's answer to a form (or a page script's request) posted from another site. */
export function walletRefusal(assets: PageAssets, text = 'This form may only be sent from the wallet’s own page.'): string {
  return walletDocument(assets, { title: 'Request refused', main: walletMessage({ kind: 'error', text }) });
}
