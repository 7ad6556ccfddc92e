import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { escapeHtml } from '../pages/html.js';
import { pageAssets, type PageAssets } from '../pages/assets.js';
import { pageSecurityHeaders } from '../pages/security-headers.js';
import { isSameOriginPost } from '../wallet/kit/same-origin.js';
import { walletDocument, walletMessage, type WalletMessage } from '../wallet/kit/wallet-document.js';
import { checkIn, findScannableQr, NO_WALLET_USER_IN_PRODUCTION } from './qr-check-in.service.js';
import type { QrRow } from './qr.view.js';

interface TestUserChoice {
  phoneNumber: string;
  name: string;
}

async function testUsers(services: Services): Promise<TestUserChoice[]> {
  const rows = await forkEm(services.orm).execute<{ phone_number: string; given_name: string | null; family_name: string | null }[]>(
    `select t.phone_number, p.given_name, p.family_name from test_user t left join user_profile p on p.phone_number = t.phone_number
     order by t.phone_number`,
  );
  return rows.map((r) => ({
    phoneNumber: r.phone_number,
    name: [r.given_name, r.family_name].filter(Boolean).join(' ') || r.phone_number,
  }));
}

function scanMain(qr: QrRow | undefined, users: TestUserChoice[], message?: WalletMessage, token?: string): string {
  if (!qr) return walletMessage(message ?? { kind: 'error', text: 'This QR code is not known.' });
  const options = users
    .map((u) => `<option value="${escapeHtml(u.phoneNumber)}">${escapeHtml(`${u.name} (${u.phoneNumber})`)}</option>`)
    .join('');
  return `<section class="summary" aria-labelledby="location">
  <h2 class="merchant" id="location">${escapeHtml(qr.location_description ?? qr.qr_id)}</h2>
  <p class="description">Scanning checks you in with sales unit ${escapeHtml(qr.msn)}.</p>
</section>
${walletMessage(message)}
${token ? `<p class="description" data-testid="customer-token">Customer token: <code>${escapeHtml(token)}</code></p>` : ''}
<form method="post" class="approve">
  <label for="phoneNumber">Test user</label>
  <select id="phoneNumber" name="phoneNumber" required>${options}</select>
  <button type="submit">Check in</button>
</form>`;
}

/** The wallet user scanning a callback QR: pick a test user; the form's POST (or a JSON POST) is the scan. */
export function qrScanPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const html = (request: HttpRequest, status: number, main: string): HttpResponse => ({
    status,
    headers: pageSecurityHeaders(request),
    body: walletDocument(assets, { title: 'Check in', main }),
  });
  return [
    {
      method: 'GET',
      pattern: '/qr/scan/{key}',
      run: async (request) => {
        if (services.config.env !== 'test') return html(request, 403, walletMessage({ kind: 'error', text: NO_WALLET_USER_IN_PRODUCTION }));
        const qr = await findScannableQr(services, request.params.key ?? '');
        return html(request, qr ? 200 : 404, scanMain(qr, await testUsers(services)));
      },
    },
    {
      method: 'POST',
      pattern: '/qr/scan/{key}',
      run: async (request) => {
        const key = request.params.key ?? '';
        const json = String(request.headers['content-type'] ?? '').startsWith('application/json');
        let phoneNumber = '';
        if (json) {
          try {
            const body = JSON.parse(request.rawBody.toString('utf8')) as { phoneNumber?: unknown };
            phoneNumber = typeof body?.phoneNumber === 'string' ? body.phoneNumber : '';
          } catch {
            phoneNumber = '';
          }
        } else {
          // A form post from another site is refused: a scan is the user's own act on this page.
          if (!isSameOriginPost(request, services.config.publicUrl)) {
            return html(request, 403, walletMessage({ kind: 'error', text: 'This form may only be sent from the wallet’s own page.' }));
          }
          phoneNumber = new URLSearchParams(request.rawBody.toString('utf8')).get('phoneNumber') ?? '';
        }
        const outcome = await checkIn(services, key, phoneNumber);
        if (json) {
          // A JSON scan's refusal is in the QR interface's body, like every answer under /qr.
          if (!outcome.ok && outcome.status === 404)
            throw new AppError('QR_NOT_FOUND', outcome.message, [{ name: 'key', reason: 'Unknown QR code' }]);
          if (!outcome.ok && outcome.status === 403) throw new AppError('FORBIDDEN_IN_PRODUCTION', outcome.message);
          if (!outcome.ok) throw AppError.validation([{ name: 'phoneNumber', reason: outcome.message }]);
          return { status: 200, body: { customerToken: outcome.payload.customerToken, merchantQrId: outcome.payload.merchantQrId } };
        }
        const qr = await findScannableQr(services, key);
        const users = await testUsers(services);
        return outcome.ok
          ? html(request, 200, scanMain(qr, users, { kind: 'ok', text: 'Checked in.' }, outcome.payload.customerToken))
          : html(request, outcome.status, scanMain(qr, users, { kind: 'error', text: outcome.message }));
      },
    },
  ];
}
