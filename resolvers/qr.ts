import type { QrCodeImageFormat, QrErrorCode, Resolvers } from '../src/generated/graphql.js';
import { scoped } from '../src/platform/auth/tenancy.js';
import { eventStream } from '../src/platform/events/event-stream.js';
import type { RequestContext, SalesUnitContext } from '../src/platform/context.js';
import { cursorsOf, keysetPage, type Keyset } from '../src/platform/graph/relay.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { AppError } from '../src/platform/errors/app-error.js';
import { QR_STREAM, type CheckInPayload } from '../src/qr/qr-event.types.js';
import { callbackQrRequest, createRedirectQrRequest, qrAcceptOf, qrIdParam, updateRedirectQrRequest } from '../src/qr/qr.schemas.js';
import { createRedirectQr, deleteQr, listQrs, putCallbackQr, updateRedirectQr } from '../src/qr/qr.service.js';
import { expiresIn, qrContent, qrUrlFor, type QrKind, type QrRow } from '../src/qr/qr.view.js';

const QR_ERROR_CODES = userErrorCodes<QrErrorCode>({ VALIDATION_FAILED: true, QR_NOT_FOUND: true, QR_ALREADY_EXISTS: true });

/** The same path rule as REST's `{id}` / `{merchantQrId}`. */
function checkId(name: string, value: string): string {
  if (!qrIdParam.accepts(value)) throw AppError.validation([{ name, reason: qrIdParam.reason }]);
  return value;
}

function imageUrl(request: RequestContext, row: QrRow, format: QrCodeImageFormat | null | undefined, size: number | null | undefined) {
  const accept = qrAcceptOf(
    format === 'PNG' ? 'image/png' : 'image/svg+xml',
    size === null || size === undefined ? undefined : String(size),
  );
  if (!('kind' in accept)) throw AppError.validation([{ name: 'size', reason: accept.reason }]);
  return qrUrlFor(request.config.publicUrl, row, accept);
}

/** QRs by their merchant-given id. */
const byQrId: Keyset<QrRow, string> = {
  keyOf: (row) => [row.qr_id],
  read: ([id, ...rest]) => (typeof id === 'string' && rest.length === 0 ? id : undefined),
};

async function qrPage(request: SalesUnitContext, kind: QrKind, first: number | null | undefined, after: string | null | undefined) {
  const page = keysetPage(
    { first, after },
    byQrId,
    20,
    cursorsOf(kind === 'redirect' ? 'Query.redirectQrs' : 'Query.callbackQrs', request),
  );
  return page.connection(await listQrs(request, kind, { limit: page.limit, after: page.after }));
}

/** QR codes in the graph: the same services and rules as REST. */
export const qrResolvers: Resolvers = {
  Query: {
    redirectQrs: (_, { first, after }, { request }) => qrPage(request, 'redirect', first, after),
    callbackQrs: (_, { first, after }, { request }) => qrPage(request, 'callback', first, after),
  },
  Mutation: {
    createRedirectQr: (_, { input }, { request }) =>
      withUserErrors(QR_ERROR_CODES, async () => ({ redirectQr: await createRedirectQr(request, createRedirectQrRequest.parse(input)) })),
    updateRedirectQr: (_, { input }, { request }) =>
      withUserErrors(QR_ERROR_CODES, async () => {
        const id = checkId('id', input.id);
        const { redirectUrl } = updateRedirectQrRequest.parse({ redirectUrl: input.redirectUrl });
        return { redirectQr: await updateRedirectQr(request, id, redirectUrl) };
      }),
    deleteRedirectQr: (_, { input }, { request }) =>
      withUserErrors(QR_ERROR_CODES, async () => {
        await deleteQr(request, 'redirect', checkId('id', input.id));
        return { deletedId: input.id };
      }),
    setCallbackQr: (_, { input }, { request }) =>
      withUserErrors(QR_ERROR_CODES, async () => {
        const id = checkId('merchantQrId', input.merchantQrId);
        const { locationDescription } = callbackQrRequest.parse({ locationDescription: input.locationDescription });
        return { callbackQr: await putCallbackQr(request, 'callback', id, locationDescription) };
      }),
    deleteCallbackQr: (_, { input }, { request }) =>
      withUserErrors(QR_ERROR_CODES, async () => {
        await deleteQr(request, 'callback', checkId('merchantQrId', input.merchantQrId));
        return { deletedMerchantQrId: input.merchantQrId };
      }),
  },
  Subscription: {
    qrCheckIns: {
      // Bound to the sales unit the connection authenticated for.
      subscribe: (_, __, context) =>
        eventStream(context.services.events, {
          filter: { msn: scoped(context.request).msn, streamType: QR_STREAM },
          map: (event) => event.payload as unknown as CheckInPayload,
        }),
      resolve: (payload: CheckInPayload) => payload,
    },
  },
  RedirectQr: {
    id: (row) => row.qr_id,
    redirectUrl: (row) => row.target_url ?? '',
    expiresIn: (row, _, { request }) => expiresIn(row, request.clock.now()),
    imageUrl: (row, { format, size }, { request }) => imageUrl(request, row, format, size),
    targetUrl: (row, _, { request }) => qrContent(request.config.publicUrl, row),
  },
  CallbackQr: {
    merchantQrId: (row) => row.qr_id,
    merchantSerialNumber: (row) => row.msn,
    locationDescription: (row) => row.location_description ?? '',
    imageUrl: (row, { format, size }, { request }) => imageUrl(request, row, format, size),
    qrContent: (row, _, { request }) => qrContent(request.config.publicUrl, row),
  },
};
