import { randomBytes } from 'node:crypto';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/**
 * A real PNG of the given size, grey, or of random pixels with `noise` (it then hardly compresses: for the 2 MB
 * limit). Written without row filters: by default pngjs tries all five on every row, three times the work in plain
 * Node, and under jest's former global (scripts/jest-environment.mjs) 5.9 s for one 760 px image against 66 ms
 * unfiltered, which made order-management one of CI's longest files. The images stay valid PNGs; only their
 * compression differs.
 */
export function pngImage(width: number, height: number, noise = false): Buffer {
  const png = new PNG({ width, height });
  if (noise) randomBytes(png.data.length).copy(png.data);
  else png.data.fill(200);
  return PNG.sync.write(png, { filterType: 0 });
}

export function jpegImage(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4, 120);
  return jpeg.encode({ data, width, height }, 80).data;
}

export const base64 = (data: Buffer) => data.toString('base64');
