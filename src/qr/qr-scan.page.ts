import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { escapeHtml } from '../pages/kit/html.js';
import { pageAssets, type PageAssets } from '../pages/kit/assets.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { isSameOriginPost } from '../pages/kit/same-origin.js';
import { walletDocument, walletMessage, type WalletMessage } from '../pages/kit/wallet-document.js';
import { checkIn, findScannableQr, NO_WALLET_USER_IN_PRODUCTION } from './qr-check-in.service.js';
import type { QrRow } from './qr.view.js';

interface TestUserChoice {
  phoneNumber: string;
  name: string;
}

async function testUsers(services: Services): Promise<TestUserChoice[]> {
  const rows = await forkEm(services.orm).execute<{ phone_number: string; given_name: string | null; family_name: string | null }[]>(
    `select t.phone_number, p.given_name, p.family_name from wallet_user t left join user_profile p on p.phone_number = t.phone_number
     order by t.phone_number`,
  );
  return rows.map((r) => ({
    phoneNumber: r.phone_number,
    name: [r.given_name, r.family_name].filter(Boolean).join(' ') || r.phone_number,
  }));
}

/** The name the person knows the shop by: its sales unit's. */
async function merchantNameOf(services: Services, msn: string): Promise<string> {
  const unit = await forkEm(services.orm).findOne(SalesUnit, { msn }, { fields: ['name'] });
  return unit?.name ?? msn;
}

interface ScanPlace {
  qr: QrRow;
  merchantName: string;
}

/** After a check-in: who checked in, where, and the token the merchant now holds. */
interface CheckedIn {
  user: TestUserChoice;
  token: string;
}

function scanMain(place: ScanPlace | undefined, users: TestUserChoice[], message?: WalletMessage, checkedIn?: CheckedIn): string {
  if (!place) return walletMessage(message ?? { kind: 'error', text: 'This QR code is not known.' });
  const { qr, merchantName } = place;
  const where = qr.location_description ?? qr.qr_id;
  // One big radio card per test user: a thumb hits a whole row, not a small select.
  const choices = users
    .map(
      (
        u,
        i,
      ) => `<label class="check option pick" for="user-${i}"><input type="radio" id="user-${i}" name="phoneNumber" value="${escapeHtml(u.phoneNumber)}"${i === 0 ? ' checked' : ''} required>
<span><span class="pick-name">${escapeHtml(u.name)}</span><br><span class="hint">${escapeHtml(u.phoneNumber)}</span></span></label>`,
    )
    .join('\n');
  const done = checkedIn
    ? `<p class="message ok" role="status" data-testid="checked-in">${escapeHtml(`${checkedIn.user.name} is checked in at ${merchantName}, ${where}.`)}</p>
<p class="description" data-testid="customer-token">Customer token for ${escapeHtml(merchantName)}: <code>${escapeHtml(checkedIn.token)}</code></p>`
    : '';
  return `<section class="summary" aria-labelledby="merchant">
  <h2 class="merchant" id="merchant">${escapeHtml(merchantName)}</h2>
  <p class="description" data-testid="location">${escapeHtml(where)}</p>
  <p class="hint">Checking in lets ${escapeHtml(merchantName)} know you are here, and lets it send you a payment request.</p>
</section>
${walletMessage(message)}${done}
<form method="post" class="approve">
  <fieldset class="group"><legend>${checkedIn ? 'Check in someone else' : 'Who is checking in?'}</legend>
${choices}
  </fieldset>
  <button type="submit">Check in</button>
</form>`;
}

async function scanPlace(services: Services, key: string): Promise<ScanPlace | undefined> {
  const qr = await findScannableQr(services, key);
  return qr ? { qr, merchantName: await merchantNameOf(services, qr.msn) } : undefined;
}

/** The wallet user scanning a callback QR: pick a test user; the form's POST (or a JSON POST) is the scan. */
export function qrScanPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const html = (request: HttpRequest, status: number, main: string, title = 'Check in'): HttpResponse => ({
    status,
    headers: pageSecurityHeaders(request),
    body: walletDocument(assets, { title, main }),
  });
  return [
    {
      method: 'GET',
      pattern: '/qr/scan/{key}',
      run: async (request) => {
        if (services.config.env !== 'test') return html(request, 403, walletMessage({ kind: 'error', text: NO_WALLET_USER_IN_PRODUCTION }));
        const place = await scanPlace(services, request.params.key ?? '');
        return html(request, place ? 200 : 404, scanMain(place, await testUsers(services)));
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
        const place = await scanPlace(services, key);
        const users = await testUsers(services);
        if (!outcome.ok) return html(request, outcome.status, scanMain(place, users, { kind: 'error', text: outcome.message }));
        const user = users.find((u) => u.phoneNumber === outcome.phoneNumber) ?? {
          phoneNumber: outcome.phoneNumber,
          name: outcome.phoneNumber,
        };
        return html(request, 200, scanMain(place, users, undefined, { user, token: outcome.payload.customerToken }), 'Checked in');
      },
    },
  ];
}
