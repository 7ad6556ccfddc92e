import type { Services } from '../platform/context.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { escapeHtml } from '../pages/html.js';
import { pageSecurityHeaders } from '../pages/security-headers.js';
import { isSameOriginPost } from '../wallet/kit/same-origin.js';
import type { ProductOrder } from './product-order.entity.js';
import { findOrderForPage, submitProductOrder } from './product-order.service.js';

const STATUS_TEXT: Record<string, string> = {
  RECEIVED: 'Ready for you to review and submit.',
  WAITING_FOR_MERCHANT: 'Some details must be entered by you before you submit.',
  PROCESSING: 'Submitted: being processed.',
  COMPLETED: 'Submitted: your sales unit is ready.',
};

function document(title: string, main: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>${main}</main></body></html>`;
}

function row(label: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(text)}</dd>`;
}

/** The merchant's view of a pre-filled order: what the partner filled in, and the submit form. */
export function prefillPage(token: string, order: ProductOrder | null, message?: { kind: 'ok' | 'error'; text: string }): string {
  if (!order) return document('Order not found', `<p role="alert">This order link is not valid.</p>`);
  const notice = message ? `<p role="${message.kind === 'error' ? 'alert' : 'status'}" id="message">${escapeHtml(message.text)}</p>` : '';
  const details = `<dl>
${row('Organisation number', order.orgNumber)}
${row('Product', order.productType)}
${row('Use case', order.productUseCase)}
${row('Sales unit name', order.salesUnitName)}
${row('Settlement account', order.settlementAccountNumber)}
${row('Annual turnover (NOK)', order.annualTurnover)}
${row('Intended purpose', order.intendedPurpose)}
${row('Website', order.website)}
</dl>`;
  const status = `<p id="status" data-status="${escapeHtml(order.status)}">Status: ${escapeHtml(STATUS_TEXT[order.status] ?? order.status)}</p>`;
  const created = order.msn
    ? `<p id="sales-unit">Your new sales unit: <strong data-msn="${escapeHtml(order.msn)}">${escapeHtml(order.msn)}</strong></p>`
    : '';
  const open = order.status === 'RECEIVED' || order.status === 'ACCESSED' || order.status === 'WAITING_FOR_MERCHANT';
  const manual = order.needsManualEntry
    ? `<p>Enter what the partner did not fill in:</p>
<p><label for="websiteUrl">Website address</label><br><input id="websiteUrl" name="websiteUrl" type="url" required placeholder="https://"></p>
<p><label for="termsUrl">Terms and conditions address</label><br><input id="termsUrl" name="termsUrl" type="url" required placeholder="https://"></p>`
    : '';
  const form = open
    ? `<form method="post" action="/merchant-portal/prefill/submit">
<input type="hidden" name="token" value="${escapeHtml(token)}">
${manual}
<button type="submit">Submit order</button>
</form>`
    : '';
  return document('Review your product order', `${notice}${status}${created}${details}${form}`);
}

/** The prefill page a partner's `prefillUrl` opens: no credentials, the token in the link is the secret. */
export function prefillPages(services: Services): PageRoute[] {
  const html = (request: HttpRequest, status: number, page: string): HttpResponse => ({
    status,
    headers: pageSecurityHeaders(request),
    body: page,
  });
  return [
    {
      method: 'GET',
      pattern: '/merchant-portal/prefill',
      run: async (request) => {
        const token = request.query.get('token') ?? '';
        const order = await findOrderForPage(services, token);
        return html(request, order ? 200 : 404, prefillPage(token, order));
      },
    },
    {
      method: 'POST',
      pattern: '/merchant-portal/prefill/submit',
      run: async (request) => {
        const form = new URLSearchParams(request.rawBody.toString('utf8'));
        const token = form.get('token') ?? '';
        if (!isSameOriginPost(request, services.config.publicUrl)) {
          return html(request, 403, document('Request refused', '<p role="alert">This form may only be sent from its own page.</p>'));
        }
        const outcome = await submitProductOrder(services, token, {
          websiteUrl: form.get('websiteUrl') ?? undefined,
          termsUrl: form.get('termsUrl') ?? undefined,
        });
        if (outcome.ok) return html(request, 200, prefillPage(token, outcome.order, { kind: 'ok', text: 'Order submitted.' }));
        return html(request, outcome.order ? 400 : 404, prefillPage(token, outcome.order, { kind: 'error', text: outcome.message }));
      },
    },
  ];
}
