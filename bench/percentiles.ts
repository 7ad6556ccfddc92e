export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of a sample, in its own unit. */
export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}
