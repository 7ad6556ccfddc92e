import QRCode from 'qrcode';
import { runLoad, type LoadResult } from './load.js';

/** issue 9: PNG QR images per second at `Size: 1000`, served (and cached) by Paygraph against `qrcode` rendering the same content. */
export interface QrImageBench {
  served: LoadResult;
  renderedPerSecond: number;
}

type Json = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<Record<string, string>>;

export async function runQrImages(
  baseUrl: string,
  json: Json,
  headers: Record<string, string>,
  options: { concurrency: number; durationMs: number; warmUpMs: number },
): Promise<QrImageBench> {
  const created = await json(
    'POST',
    '/qr/v1/merchant-redirect',
    { ...headers, Accept: 'image/png', Size: '1000' },
    {
      id: `bench-${Date.now()}`,
      redirectUrl: 'https://shop.example/bench',
    },
  );
  const imageUrl = new URL(created.url!);
  const content = await json('GET', `/qr/v1/merchant-redirect/${encodeURIComponent(created.id!)}`, {
    ...headers,
    Accept: 'text/targetUrl',
  });
  const next = () => ({ method: 'GET', path: imageUrl.pathname + imageUrl.search, headers: {} });
  await runLoad(baseUrl, { concurrency: options.concurrency, expectStatus: 200, next, durationMs: options.warmUpMs });
  const served = await runLoad(baseUrl, { concurrency: options.concurrency, expectStatus: 200, next, durationMs: options.durationMs });
  // The library alone, in this process, rendering the very same content at the same size, for as long.
  let rendered = 0;
  const started = performance.now();
  while (performance.now() - started < options.durationMs) {
    await QRCode.toBuffer(content.url!, { type: 'png', width: 1000, margin: 2 });
    rendered++;
  }
  return { served, renderedPerSecond: (rendered * 1000) / (performance.now() - started) };
}

export function renderQrImages(bench: QrImageBench): string {
  const ratio = bench.served.perSecond / bench.renderedPerSecond;
  return [
    '| PNG QR image, Size 1000 | per second | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: |',
    `| \`qrcode\` rendering (baseline) | ${bench.renderedPerSecond.toFixed(0)} | | |`,
    `| Paygraph image URL (cached) | ${bench.served.perSecond.toFixed(0)} | ${bench.served.p50Ms.toFixed(1)} | ${bench.served.p99Ms.toFixed(1)} |`,
    '',
    `Ratio ${ratio.toFixed(1)}x (target >= 5x).`,
  ].join('\n');
}
