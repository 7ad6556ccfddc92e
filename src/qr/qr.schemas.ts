import Type from 'typebox';
import type { ErrorDetail } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { declareBody } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';

/** Redirect QR ids (spec "QR resources"): 1 to 128 letters, digits, `_`, whitespace, `-`, `+`, `%`, æøåÆØÅ. */
const QR_ID_PATTERN = '^[A-Za-z0-9_\\s\\-+%æøåÆØÅ]{1,128}$';
const QR_ID_REASON = 'Must be 1 to 128 letters, digits, spaces or _ - + % æ ø å';
/** FACTS §5: `^https:\/\/[\w\.]+([\w#!:.?+=&%@\-\/]+)?$`. */
const REDIRECT_URL_PATTERN = '^https:\\/\\/[\\w\\.]+([\\w#!:.?+=&%@\\-\\/]+)?$';
const REDIRECT_URL_REASON = 'Must be an https URL';
export const MIN_TTL = 300;
export const MAX_TTL = 2_147_483_647;

export const qrIdParam: ParamRule = {
  accepts: (value) => new RegExp(QR_ID_PATTERN).test(value),
  reason: QR_ID_REASON,
  jsonSchema: { type: 'string', pattern: QR_ID_PATTERN },
};

export interface RedirectQrCommand {
  id: string;
  redirectUrl: string;
  ttl: number | null;
}

const RedirectUrl = Type.String({
  maxLength: 2048,
  pattern: REDIRECT_URL_PATTERN,
  [REASONS]: { type: REDIRECT_URL_REASON, pattern: REDIRECT_URL_REASON, maxLength: 'Must be at most 2048 characters' },
});

const CreateRedirectQr = Type.Object(
  {
    id: Type.String({ pattern: QR_ID_PATTERN, [REASONS]: { type: QR_ID_REASON, pattern: QR_ID_REASON } }),
    redirectUrl: RedirectUrl,
    ttl: Type.Optional(
      Type.Integer({
        minimum: MIN_TTL,
        maximum: MAX_TTL,
        [REASONS]: { type: 'Must be an integer', minimum: 'Must be at least 300 seconds', maximum: 'Must be at most 2147483647 seconds' },
      }),
    ),
  },
  {
    [REASONS]: { type: 'Must be a JSON object with id and redirectUrl', required: { id: QR_ID_REASON, redirectUrl: REDIRECT_URL_REASON } },
  },
);

export const createRedirectQrRequest: BodyShape<RedirectQrCommand> = declareBody(CreateRedirectQr, {
  toCommand: (body) => ({ id: body.id, redirectUrl: body.redirectUrl, ttl: body.ttl ?? null }),
});

export const updateRedirectQrRequest: BodyShape<{ redirectUrl: string }> = declareBody(
  Type.Object(
    { redirectUrl: RedirectUrl },
    { [REASONS]: { type: 'Must be a JSON object with redirectUrl', required: { redirectUrl: REDIRECT_URL_REASON } } },
  ),
  { toCommand: (body) => ({ redirectUrl: body.redirectUrl }) },
);

export const oneTimeQrRequest: BodyShape<{ url: string }> = declareBody(
  Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        [REASONS]: { type: 'Must be a landing page URL', minLength: 'Must be a landing page URL' },
      }),
    },
    { [REASONS]: { type: 'Must be a JSON object with url', required: { url: 'Must be a landing page URL' } } },
  ),
  { toCommand: (body) => ({ url: body.url }) },
);

export const callbackQrRequest: BodyShape<{ locationDescription: string }> = declareBody(
  Type.Object(
    {
      locationDescription: Type.String({
        minLength: 1,
        maxLength: 255,
        [REASONS]: {
          type: 'Must be a non-empty string',
          minLength: 'Must be a non-empty string',
          maxLength: 'Must be at most 255 characters',
        },
      }),
    },
    { [REASONS]: { type: 'Must be a JSON object with locationDescription', required: { locationDescription: 'Required' } } },
  ),
  { toCommand: (body) => ({ locationDescription: body.locationDescription }) },
);

/** What a QR answer carries, by the request's `Accept` (FACTS §5). */
export type QrAccept = { kind: 'svg' } | { kind: 'png'; size: number } | { kind: 'imageUrl' } | { kind: 'targetUrl' };
/** FACTS §5: a PNG is 800×800 by default (the QR guide). */
export const DEFAULT_PNG_SIZE = 800;

/** Reads `Accept` and `Size`; any other Accept is a 415, a Size outside 100 to 2000 a 400. */
export function qrAcceptOf(accept: string | undefined, size: string | undefined): QrAccept | ErrorDetail {
  const type = (accept ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'image/svg+xml') return { kind: 'svg' };
  if (type === 'image/*') return { kind: 'imageUrl' };
  if (type === 'text/targeturl') return { kind: 'targetUrl' };
  if (type === 'image/png') {
    if (size === undefined || size === '') return { kind: 'png', size: DEFAULT_PNG_SIZE };
    const pixels = /^\d{1,4}$/.test(size) ? Number(size) : NaN;
    if (!(pixels >= 100 && pixels <= 2000)) return { name: 'Size', reason: 'Must be an integer from 100 to 2000' };
    return { kind: 'png', size: pixels };
  }
  return { name: 'Accept', reason: 'Must be image/*, image/png, image/svg+xml or text/targetUrl' };
}
