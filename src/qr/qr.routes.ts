import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { HeaderLookup } from '../platform/auth/header-lookup.js';
import { MERCHANT_API_AUTH } from '../platform/auth/merchant-api.js';
import type { RequestContext, Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { invalidParamsProblem } from '../platform/rest/error-formats/invalid-params-problem.js';
import { openApiDocument } from '../platform/rest/openapi.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { renderQr } from './qr-image.cache.js';
import {
  callbackQrRequest,
  createRedirectQrRequest,
  oneTimeQrRequest,
  qrAcceptOf,
  qrIdParam,
  updateRedirectQrRequest,
  type QrAccept,
} from './qr.schemas.js';
import { createOneTimeQr, createRedirectQr, deleteQr, findQr, listQrs, putCallbackQr, updateRedirectQr } from './qr.service.js';
import { expiresIn, qrContent, qrImageUrl, qrUrlFor, type QrRow } from './qr.view.js';

/**
 * The MSN is optional for redirect and one-time QRs in the definition (partners must send it) and required for
 * callback QRs; every request here acts for one sales unit, so a request without it is a 400 either way.
 */
const QR_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };

function acceptOf(lookup: HeaderLookup): QrAccept {
  const accept = qrAcceptOf(lookup('Accept'), lookup('Size'));
  if ('kind' in accept) return accept;
  if (accept.name === 'Accept') throw new AppError('QR_FORMAT_NOT_ACCEPTABLE', accept.reason, [accept]);
  throw AppError.validation([accept]);
}

function redirectBody(ctx: RequestContext, row: QrRow, accept: QrAccept) {
  return {
    id: row.qr_id,
    url: qrUrlFor(ctx.config.publicUrl, row, accept),
    redirectUrl: row.target_url,
    expiresIn: expiresIn(row, ctx.clock.now()),
  };
}

export function callbackBody(ctx: RequestContext, row: QrRow, accept: QrAccept = { kind: 'svg' }) {
  return {
    merchantSerialNumber: row.msn,
    merchantQrId: row.qr_id,
    locationDescription: row.location_description,
    qrImageUrl:
      accept.kind === 'targetUrl' ? qrImageUrl(ctx.config.publicUrl, row.key, 'svg') : qrUrlFor(ctx.config.publicUrl, row, accept),
    qrContent: qrContent(ctx.config.publicUrl, row),
  };
}

const id = { id: qrIdParam };
const merchantQrId = { merchantQrId: qrIdParam };

/** The QR API v1 (FACTS §5) at its public paths: redirect, one-time and callback QRs. */
export function qrRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'QR API', prefix: '/qr', errorFormat: invalidParamsProblem, auth: MERCHANT_API_AUTH, headers: QR_HEADERS },
    (route) => [
      route({
        method: 'POST',
        path: '/v1/merchant-redirect',
        summary: 'Create merchant redirect QR',
        idempotent: false,
        body: createRedirectQrRequest,
        success: { status: 200, description: 'The QR' },
        handler: async (ctx, { body, lookupHeader }) => {
          const accept = acceptOf(lookupHeader);
          try {
            return { status: 200, body: redirectBody(ctx, await createRedirectQr(ctx, body), accept) };
          } catch (error) {
            // The QR definition's 409 (`409Conflict`) answers the id that exists, not a problem document.
            if (error instanceof AppError && error.code === 'QR_ALREADY_EXISTS') return { status: 409, body: { id: body.id } };
            throw error;
          }
        },
      }),
      route({
        method: 'GET',
        path: '/v1/merchant-redirect',
        summary: 'Get all merchant redirect QRs',
        idempotent: false,
        success: { status: 200, description: 'The QRs' },
        handler: async (ctx) => ({
          status: 200,
          body: (await listQrs(ctx, 'redirect')).map((row) => redirectBody(ctx, row, { kind: 'svg' })),
        }),
      }),
      route({
        method: 'GET',
        path: '/v1/merchant-redirect/{id}',
        summary: 'Get merchant redirect QR by id',
        idempotent: false,
        params: id,
        success: { status: 200, description: 'The QR' },
        handler: async (ctx, { params, lookupHeader }) => {
          const accept = acceptOf(lookupHeader);
          return { status: 200, body: redirectBody(ctx, await findQr(ctx, 'redirect', params.id), accept) };
        },
      }),
      route({
        method: 'PUT',
        path: '/v1/merchant-redirect/{id}',
        summary: 'Update redirectUrl of a redirect QR',
        idempotent: false,
        params: id,
        body: updateRedirectQrRequest,
        success: { status: 200, description: 'The QR' },
        handler: async (ctx, { params, body, lookupHeader }) => {
          const accept = acceptOf(lookupHeader);
          return { status: 200, body: redirectBody(ctx, await updateRedirectQr(ctx, params.id, body.redirectUrl), accept) };
        },
      }),
      route({
        method: 'DELETE',
        path: '/v1/merchant-redirect/{id}',
        summary: 'Delete merchant redirect QR',
        idempotent: false,
        params: id,
        success: { status: 200, description: 'Deleted' },
        handler: async (ctx, { params }) => {
          await deleteQr(ctx, 'redirect', params.id);
          return { status: 200 };
        },
      }),
      route({
        method: 'POST',
        path: '/v1',
        summary: 'Create one-time payment QR',
        idempotent: false,
        body: oneTimeQrRequest,
        success: { status: 200, description: 'The QR' },
        handler: async (ctx, { body, lookupHeader }) => {
          const accept = acceptOf(lookupHeader);
          const row = await createOneTimeQr(ctx, body.url);
          return { status: 200, body: { url: qrUrlFor(ctx.config.publicUrl, row, accept), expiresIn: expiresIn(row, ctx.clock.now()) } };
        },
      }),
      route({
        method: 'GET',
        path: '/v1/merchant-callback',
        summary: 'Get all callback QRs for the MSN',
        idempotent: false,
        success: { status: 200, description: 'The callback QRs' },
        handler: async (ctx) => ({ status: 200, body: (await listQrs(ctx, 'callback')).map((row) => callbackBody(ctx, row)) }),
      }),
      route({
        method: 'GET',
        path: '/v1/merchant-callback/{merchantQrId}',
        summary: 'Get callback QR by id',
        idempotent: false,
        params: merchantQrId,
        success: { status: 200, description: 'The callback QR' },
        handler: async (ctx, { params, lookupHeader }) => {
          const accept = acceptOf(lookupHeader);
          return { status: 200, body: callbackBody(ctx, await findQr(ctx, 'callback', params.merchantQrId), accept) };
        },
      }),
      route({
        method: 'PUT',
        path: '/v1/merchant-callback/{merchantQrId}',
        summary: 'Create or update callback QR',
        idempotent: false,
        params: merchantQrId,
        body: callbackQrRequest,
        success: { status: 200, description: 'Created or updated' },
        handler: async (ctx, { params, body }) => {
          await putCallbackQr(ctx, 'callback', params.merchantQrId, body.locationDescription);
          return { status: 200 };
        },
      }),
      route({
        method: 'DELETE',
        path: '/v1/merchant-callback/{merchantQrId}',
        summary: 'Delete callback QR',
        idempotent: false,
        params: merchantQrId,
        success: { status: 200, description: 'Deleted' },
        handler: async (ctx, { params }) => {
          await deleteQr(ctx, 'callback', params.merchantQrId);
          return { status: 200 };
        },
      }),
      route({
        method: 'PUT',
        path: '/v1/merchant-callback/mobilepay/{beaconId}',
        summary: 'Create callback QR (deprecated): map a printed MobilePay beacon id',
        idempotent: false,
        params: { beaconId: qrIdParam },
        body: callbackQrRequest,
        success: { status: 200, description: 'Mapped' },
        handler: async (ctx, { params, body }) => {
          await putCallbackQr(ctx, 'beacon', params.beaconId, body.locationDescription);
          return { status: 200 };
        },
      }),
    ],
  );
}

const IMAGE_KEY = /^([0-9a-f-]{36})\.(svg|png)$/i;

/**
 * The QR interface's OpenAPI document where the README says each interface has it, `<prefix>/openapi.json` with the
 * prefix of its paths (`/qr/v1`); the interface's own prefix is `/qr`, so that the public image and redirect URLs
 * under it answer in the QR error body too.
 */
export function qrOpenApiPage(services: Services): PageRoute {
  const document = openApiDocument(qrRoutes(services));
  return { method: 'GET', pattern: '/qr/v1/openapi.json', run: async () => ({ status: 200, body: document }) };
}

/** QR images and the redirect behind a redirect QR: no credentials, stable URLs; errors in the QR body. */
export function qrPublicPages(services: Services): PageRoute[] {
  const live = async (key: string): Promise<QrRow | undefined> => {
    if (!/^[0-9a-f-]{36}$/i.test(key)) return undefined;
    const [row] = await forkEm(services.orm).execute<QrRow[]>(
      `select key, msn, kind, qr_id, target_url, location_description, expires_at from qr_code where key = ? limit 1`,
      [key],
    );
    // A QR expires by the time of its sales unit.
    if (!row || (row.expires_at !== null && new Date(row.expires_at).getTime() <= services.testClocks.of(row.msn).now().getTime()))
      return undefined;
    return row;
  };
  const gone = () => new AppError('QR_NOT_FOUND', 'No such QR (or it expired)', [{ name: 'key', reason: 'Unknown or expired' }]);
  return [
    {
      method: 'GET',
      pattern: '/qr/public/images/{file}',
      run: async (request) => {
        const match = IMAGE_KEY.exec(request.params.file ?? '');
        const row = match ? await live(match[1]!.toLowerCase()) : undefined;
        if (!match || !row) throw gone();
        const format = match[2]!.toLowerCase() as 'svg' | 'png';
        const accept = qrAcceptOf(format === 'png' ? 'image/png' : 'image/svg+xml', request.query.get('size') ?? undefined);
        if (!('kind' in accept)) throw AppError.validation([{ name: 'size', reason: accept.reason }]);
        const image = await renderQr(qrContent(services.config.publicUrl, row), format, accept.kind === 'png' ? accept.size : 0);
        const headers = { 'content-type': image.contentType, etag: image.etag, 'cache-control': 'public, max-age=300' };
        if (request.headers['if-none-match'] === image.etag) return { status: 304, headers };
        return { status: 200, headers, body: image.body };
      },
    },
    {
      method: 'GET',
      pattern: '/qr/public/redirect/{key}',
      run: async (request) => {
        const row = await live(request.params.key ?? '');
        if (!row || row.kind !== 'redirect' || !row.target_url) throw gone();
        return { status: 302, headers: { location: row.target_url, 'cache-control': 'no-store' } };
      },
    },
  ];
}
