import { Resvg } from '@resvg/resvg-js';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

type JsQR = (typeof import('jsqr'))['default'];
/** jsqr is CommonJS: its function is the module itself or its `default`, depending on the loader. */
const jsQR = ((jsQRModule as unknown as { default?: JsQR }).default ?? jsQRModule) as unknown as JsQR;

/** The text a PNG's QR code holds, read by a real decoder (jsQR over the decoded pixels). */
export function decodePngQr(data: Buffer): { text: string; width: number; height: number } {
  const png = PNG.sync.read(data);
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  if (!code) throw new Error('no QR code found in the PNG');
  return { text: code.data, width: png.width, height: png.height };
}

/** The text an SVG's QR code holds: the SVG rendered to pixels (resvg), then decoded. */
export function decodeSvgQr(svg: string): string {
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: 400 }, background: 'white' }).render().asPng();
  return decodePngQr(Buffer.from(png)).text;
}
