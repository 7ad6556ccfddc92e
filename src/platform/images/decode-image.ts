import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export type ImageFormat = 'png' | 'jpeg';

export interface DecodedImage {
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
}

/** Why an upload is not an image we accept; the caller names its field and renders its interface's error. */
export class ImageRejected extends Error {}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/**
 * Strict base64 (standard alphabet, padding optional, no whitespace or data-URL prefix): a lenient decoder would
 * turn garbage into a few bytes and let the image check report a confusing reason.
 */
export function decodeBase64(text: string): Buffer {
  if (text.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 === 1) {
    throw new ImageRejected('Must be base64 (standard alphabet, no data: prefix)');
  }
  return Buffer.from(text, 'base64');
}

/**
 * Decodes the whole image, pixels included: a file whose header is an image but whose data is broken (bad CRC,
 * truncated stream) is refused, which reading the dimensions from the header alone would let through.
 */
export function decodeImage(data: Buffer, accepted: readonly ImageFormat[] = ['png', 'jpeg']): DecodedImage {
  const format = data.subarray(0, 8).equals(PNG_SIGNATURE) ? 'png' : data.subarray(0, 3).equals(JPEG_SIGNATURE) ? 'jpeg' : undefined;
  if (!format || !accepted.includes(format))
    throw new ImageRejected(`Must be a ${accepted.map((f) => f.toUpperCase()).join(' or ')} image`);
  try {
    if (format === 'png') {
      const png = PNG.sync.read(data);
      return { format, width: png.width, height: png.height, bytes: data.length };
    }
    // The limit keeps a hostile header (a huge declared size) from allocating gigabytes.
    const image = jpeg.decode(data, { maxMemoryUsageInMB: 256, maxResolutionInMP: 64, formatAsRGBA: false });
    return { format, width: image.width, height: image.height, bytes: data.length };
  } catch (error) {
    throw new ImageRejected(`Not a valid ${format.toUpperCase()} image: ${error instanceof Error ? error.message : 'undecodable'}`);
  }
}
