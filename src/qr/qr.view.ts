import type { QrAccept } from './qr.schemas.js';

export type QrKind = 'redirect' | 'onetime' | 'callback' | 'beacon';

/** A stored QR (any kind). */
export interface QrRow {
  key: string;
  msn: string;
  kind: QrKind;
  qr_id: string;
  target_url: string | null;
  location_description: string | null;
  expires_at: Date | string | null;
}

/** Where this service serves a QR's image (no credentials needed: the key is unguessable). */
export function qrImageUrl(publicUrl: string, key: string, format: 'svg' | 'png', size?: number): string {
  return `${publicUrl}/qr/public/images/${key}.${format}${format === 'png' && size ? `?size=${size}` : ''}`;
}

/** What a QR encodes: a redirect QR its stable redirect URL (the target may change), a callback QR its scan URL. */
export function qrContent(publicUrl: string, row: QrRow): string {
  switch (row.kind) {
    case 'redirect':
      return `${publicUrl}/qr/public/redirect/${row.key}`;
    case 'onetime':
      return row.target_url!;
    case 'callback':
    case 'beacon':
      return `${publicUrl}/qr/scan/${row.key}`;
  }
}

/** The `url` of an answer, by the request's Accept. */
export function qrUrlFor(publicUrl: string, row: QrRow, accept: QrAccept): string {
  switch (accept.kind) {
    case 'svg':
    case 'imageUrl':
      return qrImageUrl(publicUrl, row.key, 'svg');
    case 'png':
      return qrImageUrl(publicUrl, row.key, 'png', accept.size);
    case 'targetUrl':
      return qrContent(publicUrl, row);
  }
}

/** Seconds left, counted down from the stored expiry; -1 when the QR never expires. */
export function expiresIn(row: QrRow, now: Date): number {
  if (row.expires_at === null) return -1;
  return Math.max(0, Math.ceil((new Date(row.expires_at).getTime() - now.getTime()) / 1000));
}
