import { fragmentFanOutDocument, repeatedSelectionDocument } from './graph-documents.js';
import { percentiles, type Percentiles } from './percentiles.js';

/**
 * Hostile documents, each sent over and over by one client while another client reads `/healthz` sequentially: how
 * long a refusal takes, and what the other client waits meanwhile.
 * - issue 20: the 24-level fragment fan-out (before its fix: 7-8 s per refusal, and the same for everyone else);
 * - issue 33 (N3): `{ viewer { kind } … }` 740 times (before its fix: 80 ms to 1.1 s of validation per refusal).
 * A refused document is charged (the most an operation may cost), so the hostile client soon meets its quota and
 * is refused with 429 instead of 400: both count as refusals. It sends with a token of its own (merchant B's
 * client), so the quota it spends is not the one the other rows measure with.
 */
export interface HostileDocumentBench {
  document: string;
  refusals: number;
  /** Of the refusals, those answered 429: the client's quota was spent. */
  rateLimited: number;
  refuseMs: Percentiles;
  otherClientMs: Percentiles;
  otherClientRequests: number;
}

export const HOSTILE_DOCUMENTS: readonly { name: string; query: string }[] = [
  { name: '24-level fragment fan-out (issue 20)', query: fragmentFanOutDocument() },
  { name: '`viewer { kind }` 740 times (issue 33, N3)', query: repeatedSelectionDocument() },
];

export async function runHostileDocuments(
  baseUrl: string,
  headers: Record<string, string>,
  options: { durationMs: number },
): Promise<HostileDocumentBench[]> {
  const results: HostileDocumentBench[] = [];
  for (const { name, query } of HOSTILE_DOCUMENTS) results.push(await runOne(baseUrl, headers, name, query, options.durationMs));
  return results;
}

async function runOne(
  baseUrl: string,
  headers: Record<string, string>,
  document: string,
  query: string,
  durationMs: number,
): Promise<HostileDocumentBench> {
  const body = JSON.stringify({ query });
  const refuseMs: number[] = [];
  const otherMs: number[] = [];
  let rateLimited = 0;
  const until = performance.now() + durationMs;
  const hostile = (async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body });
      await res.text();
      if (res.status === 429) rateLimited++;
      else if (res.status !== 400) throw new Error(`${document} was answered ${res.status}, not refused`);
      refuseMs.push(performance.now() - started);
    }
  })();
  const other = (async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/healthz`);
      await res.text();
      otherMs.push(performance.now() - started);
    }
  })();
  await Promise.all([hostile, other]);
  return {
    document,
    refusals: refuseMs.length,
    rateLimited,
    refuseMs: percentiles(refuseMs),
    otherClientMs: percentiles(otherMs),
    otherClientRequests: otherMs.length,
  };
}

export function renderHostileDocuments(results: readonly HostileDocumentBench[]): string {
  const ms = (p: Percentiles) => `p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, max ${p.max.toFixed(1)} ms`;
  return [
    '### Hostile documents (issues 20 and 33)',
    '',
    '| document | time to refuse it (one after another) | another client’s `GET /healthz` meanwhile |',
    '|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.document} | ${ms(r.refuseMs)} (${r.refusals} refusals, ${r.rateLimited} of them 429) | ` +
        `${ms(r.otherClientMs)} (${r.otherClientRequests} requests) |`,
    ),
  ].join('\n');
}
