import { randomBytes } from 'node:crypto';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** A real PNG of the given size; `noise` fills it with random pixels, so it hardly compresses (for the 2 MB limit). */
export function pngImage(width: number, height: number, noise = false): Buffer {
  const png = new PNG({ width, height });
  if (noise) randomBytes(png.data.length).copy(png.data);
  else png.data.fill(200);
  return PNG.sync.write(png);
}

export function jpegImage(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4, 120);
  return jpeg.encode({ data, width, height }, 80).data;
}

export const base64 = (data: Buffer) => data.toString('base64');
