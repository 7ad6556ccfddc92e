import { percentiles, type Percentiles } from './percentiles.js';

/**
 * issue 20: the hostile document whose 24 fragments each spread the next one twice. Sent over and over by one
 * client while another client reads `/healthz` sequentially: how long the refusal takes, and what the other client
 * waits meanwhile (before the fix: 7-8 s per refusal, and the same for everyone else).
 */
export interface FragmentFanOutBench {
  refusals: number;
  refuseMs: Percentiles;
  otherClientMs: Percentiles;
  otherClientRequests: number;
}

export function fanOutDocument(levels = 24): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return [`query FanOut { ...F0 }`, ...fragments, `fragment F${levels} on Query { __typename }`].join('\n');
}

export async function runFragmentFanOut(
  baseUrl: string,
  headers: Record<string, string>,
  options: { durationMs: number },
): Promise<FragmentFanOutBench> {
  const body = JSON.stringify({ query: fanOutDocument() });
  const refuseMs: number[] = [];
  const otherMs: number[] = [];
  const until = performance.now() + options.durationMs;
  const hostile = (async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body });
      await res.text();
      if (res.status !== 400) throw new Error(`the fan-out document was answered ${res.status}, not refused`);
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
    refusals: refuseMs.length,
    refuseMs: percentiles(refuseMs),
    otherClientMs: percentiles(otherMs),
    otherClientRequests: otherMs.length,
  };
}

export function renderFragmentFanOut(result: FragmentFanOutBench): string {
  const ms = (p: Percentiles) => `p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, max ${p.max.toFixed(1)} ms`;
  return [
    '### Hostile document: 24-level fragment fan-out (issue 20)',
    '',
    '| figure | measured |',
    '|---|---|',
    `| time to refuse it (${result.refusals} refusals, one after another) | ${ms(result.refuseMs)} |`,
    `| another client's \`GET /healthz\` meanwhile (${result.otherClientRequests} requests) | ${ms(result.otherClientMs)} |`,
  ].join('\n');
}
