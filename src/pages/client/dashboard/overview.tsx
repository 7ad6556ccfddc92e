import { useEffect, useState } from 'preact/hooks';
import type { Graph } from '../shared/graph.js';
import type { FeedStore } from './feed-store.js';
import { Feed } from './feed.js';
import { OVERVIEW, type OverviewData } from './queries.js';
import { RateChart } from './rate-chart.js';
import { Totals } from './totals.js';
import { useFeedVersion } from './use-feed.js';
import { Alert } from './parts.js';

/** Events arriving together cause one read of the totals, not one each. */
const SETTLE_MS = 150;

/**
 * The live page: totals of today and the last hour's rate by the sales unit's clock (read again whenever the feed
 * moves), and the feed.
 */
export function Overview({ graph, feed }: { graph: Graph; feed: FeedStore }) {
  const version = useFeedVersion(feed);
  const [overview, setOverview] = useState<OverviewData | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(
      async () => {
        try {
          const data = await graph.query<OverviewData>(OVERVIEW);
          if (!cancelled) {
            setOverview(data);
            setError(undefined);
          }
        } catch (failure) {
          if (!cancelled) setError(failure instanceof Error ? failure.message : String(failure));
        }
      },
      version === 0 ? 0 : SETTLE_MS,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [graph, version]);
  return (
    <>
      <Alert error={error} />
      {overview?.webhooks
        .filter((w) => w.failureRate.failing)
        .map((w) => (
          <p key={w.id} class="failing-banner" data-testid="failing-webhook">
            Webhook receiver {w.url} is failing: {(w.failureRate.rate * 100).toFixed(0)} % of {w.failureRate.attempts} attempts in the last
            24 hours. <a href="#/webhooks">See its deliveries</a>
          </p>
        ))}
      <section class="cards" aria-label="Today">
        <Totals data={overview?.paymentTotals} />
        <RateChart rates={overview?.paymentEventsPerMinute ?? []} now={overview?.paymentTotals.asOf} />
      </section>
      <Feed feed={feed} />
    </>
  );
}
