import { createHash } from 'node:crypto';
import { qrImage } from '../wallet/qr-image.js';

export interface RenderedQr {
  contentType: string;
  body: string | Buffer;
  etag: string;
}

/** How many rendered images one process keeps (each at most a few hundred kB). */
const CAPACITY = 500;
const cache = new Map<string, Promise<RenderedQr>>();

/**
 * A QR image of `content`, rendered once per (content, format, size) and then served from memory: the image of a
 * QR never changes (a redirect QR's content is its stable redirect URL, not the target), so nothing is invalidated.
 */
export function renderQr(content: string, format: 'svg' | 'png', size: number): Promise<RenderedQr> {
  const key = `${format}:${format === 'png' ? size : 0}:${content}`;
  let rendered = cache.get(key);
  if (rendered) {
    // Most recently used last: the oldest is the first to go.
    cache.delete(key);
    cache.set(key, rendered);
    return rendered;
  }
  rendered = qrImage(content, format, size).then((image) => ({
    ...image,
    etag: `"${createHash('sha256').update(key).digest('base64url').slice(0, 27)}"`,
  }));
  rendered.catch(() => cache.delete(key));
  cache.set(key, rendered);
  if (cache.size > CAPACITY) cache.delete(cache.keys().next().value!);
  return rendered;
}
