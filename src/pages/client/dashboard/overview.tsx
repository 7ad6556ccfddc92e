import { useEffect, useState } from 'preact/hooks';
import type { Graph } from '../shared/graph.js';
import type { FeedStore } from './feed-store.js';
import { Feed } from './feed.js';
import { OVERVIEW, type OverviewData } from './queries.js';
import { RateChart } from './rate-chart.js';
import { Totals } from './totals.js';
import { useFeedVersion } from './use-feed.js';

const HOUR_MS = 60 * 60 * 1000;
/** Events arriving together cause one read of the totals, not one each. */
const SETTLE_MS = 150;

/** The live page: totals of today and the last hour's rate (read again whenever the feed moves), and the feed. */
export function Overview({ graph, feed }: { graph: Graph; feed: FeedStore }) {
  const version = useFeedVersion(feed);
  const [overview, setOverview] = useState<OverviewData | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(
      async () => {
        const today = new Date();
        today.setHours(0, 0, 0, 0);
        try {
          const data = await graph.query<OverviewData>(OVERVIEW, {
            today: today.toISOString(),
            hourAgo: new Date(Date.now() - HOUR_MS).toISOString(),
          });
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section class="cards" aria-label="Today">
        <Totals data={overview?.paymentTotals} />
        <RateChart rates={overview?.paymentEventsPerMinute ?? []} />
      </section>
      <Feed feed={feed} />
    </>
  );
}
