import type { EventTypeDefinition } from '../platform/events/event-types.js';

/** The outbox stream of QR check-ins; the stream id is the scanned QR's key. */
export const QR_STREAM = 'qr';
/** The public definition's name (FACTS §2); the spec's QR API calls the same event `QrScannedEvent`. */
export const CHECKED_IN = 'user.checked-in.v1';

export interface CheckInPayload {
  customerToken: string;
  merchantQrId: string;
  merchantSerialNumber: string;
  initiatedAt: string;
}

export const qrEventTypes: EventTypeDefinition = {
  streamType: QR_STREAM,
  webhookEventNames: [CHECKED_IN],
  webhookEventAliases: { QrScannedEvent: CHECKED_IN },
  // The public payload: {customerToken, merchantQrId, merchantSerialNumber, initiatedAt}.
  webhookBody: (event) => {
    const p = event.payload as unknown as CheckInPayload;
    return JSON.stringify({
      customerToken: p.customerToken,
      merchantQrId: p.merchantQrId,
      merchantSerialNumber: p.merchantSerialNumber,
      initiatedAt: p.initiatedAt,
    });
  },
};
