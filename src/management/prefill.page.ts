import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { RegistryEntry } from '../business-registry/registry-entry.entity.js';
import { pageAssets, type PageAssets } from '../pages/kit/assets.js';
import { escapeHtml } from '../pages/kit/html.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { isSameOriginPost } from '../pages/kit/same-origin.js';
import { walletDocument, walletMessage, type WalletMessage } from '../pages/kit/wallet-document.js';
import { PricePackage } from './price-package.entity.js';
import type { ProductOrder } from './product-order.entity.js';
import { findOrderForPage, missingEntries, submitProductOrder, type GiftCardShare } from './product-order.service.js';

/** The header's name: this is the merchant portal, not the wallet, though it is built on the wallet's page kit. */
const PORTAL = 'Paygraph merchant portal';

const STATUS_TEXT: Record<string, string> = {
  RECEIVED: 'Ready for you to check and submit.',
  ACCESSED: 'Ready for you to check and submit.',
  WAITING_FOR_MERCHANT: 'Your partner left some details out: fill them in below, then submit.',
  PROCESSING: 'Submitted: being processed.',
  COMPLETED: 'Submitted: your sales unit is ready.',
};

/** The products by the names a merchant knows them by. */
const PRODUCT_NAMES: Record<string, string> = {
  SVC_PA_NETT: 'Payments online',
  SVC_I_KASSA: 'Payments in the shop',
  SVC_LOGG_INN: 'Login',
  SVC_CHECKOUT: 'Checkout',
};

const USE_CASES: Record<string, string> = {
  Website: 'A website',
  WebsiteWithTest: 'A website, with a test website',
  App: 'An app',
  Unknown: 'Not said',
};

/** What the page shows beside the order: the names behind its numbers and ids. */
export interface PrefillLabels {
  companyName: string | null;
  pricePackage: string | null;
}

function row(label: string, value: string | null | undefined, testId?: string): string {
  if (value === null || value === undefined || value === '') return '';
  return `<dt>${escapeHtml(label)}</dt><dd${testId ? ` data-testid="${testId}"` : ''}>${escapeHtml(value)}</dd>`;
}

function turnover(value: number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return `kr ${Math.trunc(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')}`;
}

function websiteRows(website: Record<string, unknown> | null | undefined): string {
  if (!website) return '';
  const text = (key: string) => (typeof website[key] === 'string' ? (website[key] as string) : null);
  return `${row('Website', text('url'), 'website')}${row('Terms and conditions', text('termsUrl'))}${row('Test website', text('testWebsiteUrl'))}${row('Test website user', text('testWebsiteUsername'))}`;
}

/** Only what the partner left out: the website, or what the company sells (compliance), each where missing. */
function missingFields(order: ProductOrder): string {
  const missing = missingEntries(order);
  const parts: string[] = [];
  if (missing.website) {
    parts.push(`<fieldset class="group" data-testid="ask-website"><legend>Your website</legend>
<div class="field"><label for="websiteUrl">Website address</label>
<input id="websiteUrl" name="websiteUrl" type="url" required placeholder="https://" autocomplete="url"></div>
<div class="field"><label for="termsUrl">Address of your terms and conditions</label>
<input id="termsUrl" name="termsUrl" type="url" required placeholder="https://"></div>
</fieldset>`);
  }
  if (missing.complianceData) {
    const choice = (value: GiftCardShare, text: string) =>
      `<label class="check option pick" for="giftCards-${value}"><input type="radio" id="giftCards-${value}" name="giftCards" value="${value}" required><span>${escapeHtml(text)}</span></label>`;
    parts.push(`<fieldset class="group" data-testid="ask-compliance"><legend>Do you sell gift cards?</legend>
${choice('none', 'No')}
${choice('under10', 'Yes, less than 10% of our sales')}
${choice('10orMore', 'Yes, 10% of our sales or more')}
</fieldset>`);
  }
  return parts.join('\n');
}

/** The merchant's view of a pre-filled order: what the partner filled in, in plain words, and the submit form. */
export function prefillPage(
  assets: PageAssets,
  token: string,
  order: ProductOrder | null,
  labels: PrefillLabels,
  message?: WalletMessage,
): string {
  if (!order)
    return walletDocument(assets, {
      title: 'Order not found',
      brand: PORTAL,
      main: walletMessage({ kind: 'error', text: 'This order link is not valid.' }),
    });
  const company = labels.companyName ? `${labels.companyName} (org. no. ${order.orgNumber})` : `Org. no. ${order.orgNumber}`;
  const details = `<section class="summary" aria-labelledby="company">
<h2 class="merchant" id="company" data-testid="company">${escapeHtml(company)}</h2>
<dl class="facts">
${row('Product', PRODUCT_NAMES[order.productType] ?? order.productType, 'product')}
${row('Used for', order.productUseCase ? (USE_CASES[order.productUseCase] ?? order.productUseCase) : null)}
${row('Price package', labels.pricePackage, 'price-package')}
${row('Name shown to customers', order.salesUnitName)}
${row('Settlement account', order.settlementAccountNumber)}
${row('Annual turnover', turnover(order.annualTurnover))}
${row('What you sell', order.intendedPurpose)}
${websiteRows(order.website)}
</dl>
<p class="state" id="status" data-status="${escapeHtml(order.status)}">${escapeHtml(STATUS_TEXT[order.status] ?? order.status)}</p>
</section>`;
  const created = order.msn
    ? `<p class="message ok" id="sales-unit">Your new sales unit: <strong data-msn="${escapeHtml(order.msn)}">${escapeHtml(order.msn)}</strong></p>`
    : '';
  const open = order.status === 'RECEIVED' || order.status === 'ACCESSED' || order.status === 'WAITING_FOR_MERCHANT';
  const form = open
    ? `<form method="post" action="/merchant-portal/prefill/submit">
<input type="hidden" name="token" value="${escapeHtml(token)}">
${missingFields(order)}
<button type="submit">Submit order</button>
</form>`
    : '';
  const title = order.status === 'PROCESSING' || order.status === 'COMPLETED' ? 'Order submitted' : 'Check your product order';
  return walletDocument(assets, { title, brand: PORTAL, main: `${walletMessage(message)}${details}${created}${form}` });
}

async function labelsOf(services: Services, order: ProductOrder | null): Promise<PrefillLabels> {
  if (!order) return { companyName: null, pricePackage: null };
  const em = forkEm(services.orm);
  const entry = await em.findOne(RegistryEntry, { orgNumber: order.orgNumber }, { fields: ['name'] });
  const pricePackage = order.pricePackageId ? await em.findOne(PricePackage, { id: order.pricePackageId }, { fields: ['name'] }) : null;
  return { companyName: entry?.name ?? null, pricePackage: pricePackage?.name ?? null };
}

/** The prefill page a partner's `prefillUrl` opens: no credentials, the token in the link is the secret. */
export function prefillPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
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
        return html(request, order ? 200 : 404, prefillPage(assets, token, order, await labelsOf(services, order)));
      },
    },
    {
      method: 'POST',
      pattern: '/merchant-portal/prefill/submit',
      run: async (request) => {
        const form = new URLSearchParams(request.rawBody.toString('utf8'));
        const token = form.get('token') ?? '';
        if (!isSameOriginPost(request, services.config.publicUrl)) {
          return html(
            request,
            403,
            walletDocument(assets, {
              title: 'Request refused',
              brand: PORTAL,
              main: walletMessage({ kind: 'error', text: 'This form may only be sent from its own page.' }),
            }),
          );
        }
        const giftCards = form.get('giftCards');
        const outcome = await submitProductOrder(services, token, {
          websiteUrl: form.get('websiteUrl') ?? undefined,
          termsUrl: form.get('termsUrl') ?? undefined,
          giftCards: giftCards === 'none' || giftCards === 'under10' || giftCards === '10orMore' ? giftCards : undefined,
        });
        const labels = await labelsOf(services, outcome.order);
        if (outcome.ok)
          return html(request, 200, prefillPage(assets, token, outcome.order, labels, { kind: 'ok', text: 'Order submitted.' }));
        return html(
          request,
          outcome.order ? 400 : 404,
          prefillPage(assets, token, outcome.order, labels, { kind: 'error', text: outcome.message }),
        );
      },
    },
  ];
}
