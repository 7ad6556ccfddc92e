import type { LandingPayment } from './landing.service.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function formatAmount(minorUnits: number, currency: string): string {
  return `${(minorUnits / 100).toFixed(2)} ${currency}`;
}

/** The wallet user's page: who is asking, how much, and the two choices a wallet app offers. */
export function landingPage(token: string, payment: LandingPayment | undefined, message?: { kind: 'ok' | 'error'; text: string }): string {
  const t = encodeURIComponent(token);
  const body = !payment
    ? `<p class="error">${escapeHtml(message?.text ?? 'This payment link is not valid.')}</p>`
    : `
    <p class="merchant">${escapeHtml(payment.merchantName)}</p>
    <p class="amount" data-testid="amount">${escapeHtml(formatAmount(payment.amount, payment.currency))}</p>
    ${payment.description ? `<p class="description">${escapeHtml(payment.description)}</p>` : ''}
    <p class="state" data-testid="state">Status: ${escapeHtml(payment.state)}</p>
    ${message ? `<p class="${message.kind}" role="status">${escapeHtml(message.text)}</p>` : ''}
    ${
      payment.awaitsUser
        ? `<form method="post" action="/wallet/landing/approve?token=${t}">
        <label for="phoneNumber">Your phone number (test user)</label>
        <input id="phoneNumber" name="phoneNumber" inputmode="numeric" autocomplete="tel" required
          value="${escapeHtml(payment.customerPhoneNumber ?? '')}" placeholder="91234567">
        <button type="submit" name="action" value="approve">Approve</button>
      </form>
      <form method="post" action="/wallet/landing/reject?token=${t}">
        <button type="submit" class="secondary">Reject</button>
      </form>`
        : ''
    }
    ${!payment.awaitsUser && payment.returnUrl ? `<p><a href="${escapeHtml(payment.returnUrl)}">Back to ${escapeHtml(payment.merchantName)}</a></p>` : ''}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Paygraph test wallet</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem;color:#222}
.amount{font-size:2rem;font-weight:600;margin:.25rem 0}.merchant{font-size:1.2rem;margin-bottom:0}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:.75rem;width:100%;padding:.6rem;font-size:1rem;background:#ff5b24;color:#fff;border:0;border-radius:.4rem}
button.secondary{background:#eee;color:#222}.error{color:#b00020}.ok{color:#1b5e20}
</style></head>
<body><h1>Test wallet</h1>${body}</body></html>`;
}
