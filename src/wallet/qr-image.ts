import QRCode from 'qrcode';

/** A QR code of `text`, as SVG or as a square PNG of `size` pixels. */
export async function qrImage(text: string, format: 'svg' | 'png', size = 1024): Promise<{ contentType: string; body: string | Buffer }> {
  if (format === 'svg') return { contentType: 'image/svg+xml', body: await QRCode.toString(text, { type: 'svg', margin: 2 }) };
  return { contentType: 'image/png', body: await QRCode.toBuffer(text, { type: 'png', width: size, margin: 2 }) };
}
