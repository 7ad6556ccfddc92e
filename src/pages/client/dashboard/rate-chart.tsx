const MINUTES = 60;
const WIDTH = 600;
const HEIGHT = 120;

/** Events per minute over the last hour of the sales unit's clock (`now`), as bars with their values; empty minutes are empty. */
export function RateChart({ rates, now: asOf }: { rates: { minute: string; count: number }[]; now: string | undefined }) {
  const now = Math.floor((asOf ? Date.parse(asOf) : Date.now()) / 60_000);
  const counts = new Array<number>(MINUTES).fill(0);
  for (const rate of rates) {
    const slot = MINUTES - 1 - (now - Math.floor(Date.parse(rate.minute) / 60_000));
    if (slot >= 0 && slot < MINUTES) counts[slot] = (counts[slot] ?? 0) + rate.count;
  }
  const max = Math.max(1, ...counts);
  const total = counts.reduce((a, b) => a + b, 0);
  const bar = WIDTH / MINUTES;
  return (
    <section class="card chart" aria-labelledby="chart-title">
      <h2 id="chart-title">Events per minute, last hour</h2>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 16}`}
        role="img"
        aria-label={`${total} events in the last hour; at most ${max} in one minute`}
        data-testid="rate-chart"
      >
        {counts.map((count, i) =>
          count > 0 ? (
            <rect key={i} x={i * bar + 1} y={HEIGHT - (count / max) * HEIGHT} width={bar - 2} height={(count / max) * HEIGHT} class="bar">
              <title>{`${MINUTES - 1 - i} min ago: ${count}`}</title>
            </rect>
          ) : null,
        )}
        {counts.map((count, i) =>
          count > 0 ? (
            <text key={`v${i}`} x={i * bar + bar / 2} y={Math.max(10, HEIGHT - (count / max) * HEIGHT - 2)} class="value">
              {count}
            </text>
          ) : null,
        )}
        <text x="0" y="10" class="label" data-testid="chart-max">
          {`max ${max}/min`}
        </text>
        <line x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} class="axis" />
        <text x="0" y={HEIGHT + 14} class="label">
          −60 min
        </text>
        <text x={WIDTH} y={HEIGHT + 14} class="label end">
          now
        </text>
      </svg>
    </section>
  );
}
