import { useEffect, useState } from 'preact/hooks';
import type { FeedStore } from './feed-store.js';

/** Re-renders at every change of the feed; returns its version. */
export function useFeedVersion(feed: FeedStore): number {
  const [version, setVersion] = useState(feed.version);
  useEffect(() => feed.onChange(() => setVersion(feed.version)), [feed]);
  return version;
}
