import { backoffDelayMs } from '../../platform/delivery/backoff.js';
import { CredentialsRefused, GraphFailure, unreachable } from '../network/paygraph-client.js';
import { EventFeed, LiveLost, LiveRefused } from './event-feed.js';
import { Forwarder, ListenStopped, pause, type ListenedEvent, type ListenOutput, type RetryDelays } from './forwarder.js';
import { writeCursor, type ListenState } from './listen-state.js';

/**
 * Events received live and not yet forwarded, past which listen lets go of the live stream and pages forward from its
 * cursor instead: a receiver that holds events back never makes listen hold the stream in memory.
 */
export const LIVE_BACKLOG = 200;

/** The service cannot go on with this listener (its cursor is no event of the unit, the credentials are refused). */
export class ListenRefused extends Error {}

export interface ListenerOptions {
  feed: EventFeed;
  forwarder: Forwarder;
  state: ListenState;
  output: ListenOutput;
  stop: AbortSignal;
  serviceUrl: string;
  delays: RetryDelays;
}

/**
 * Follows the unit's stream from `cursor` until stopped, forwarding each event in stream order and recording it as
 * acknowledged (the cursor file) only once the receiver answered 2xx, or once it is skipped (no webhook type, so no
 * delivery to wait for). A lost connection, a restarted service or a refused token is reported and retried with
 * backoff from the cursor: pages of the oldest-first read however far behind, then the subscription after the last.
 * Resolves with the last acknowledged id when stopped; throws ListenRefused when the service refuses to go on.
 */
export async function follow(options: ListenerOptions, cursor: string): Promise<string> {
  const { feed, output, stop, serviceUrl, delays } = options;
  let last = cursor;
  const acknowledge = async (event: ListenedEvent) => {
    if (event.webhookBody !== null) await options.forwarder.deliver({ ...event, webhookBody: event.webhookBody });
    await writeCursor(options.state, event.eventId);
    last = event.eventId;
  };
  for (let failures = 0; ;) {
    try {
      // The catch-up: page after page, however long the listener or the connection was away.
      for (let more = true; more;) {
        const page = await feed.page(last);
        if (failures > 0) output.status(`reconnected to ${serviceUrl}: resuming after event ${last}`);
        failures = 0;
        for (const event of page.events) await acknowledge(event);
        more = page.more;
      }
      await followLive(options, last, acknowledge);
    } catch (error) {
      if (error instanceof ListenStopped) return last;
      const reason = transientReason(error);
      if (reason === undefined) throw error;
      failures += 1;
      const delay = backoffDelayMs(failures, delays.firstMs, delays.maxMs);
      if (failures === 1 || failures % 10 === 0) {
        output.status(`lost ${serviceUrl} (${reason}): resuming after event ${last}, retrying every few seconds`);
      }
      try {
        await pause(delay, stop);
      } catch {
        return last;
      }
    }
  }
}

/** The live stream after the catch-up, until it is lost (thrown) or falls LIVE_BACKLOG behind (returns). */
async function followLive(options: ListenerOptions, after: string, acknowledge: (event: ListenedEvent) => Promise<void>): Promise<void> {
  const queue: ListenedEvent[] = [];
  let wake: () => void = () => undefined;
  const live = options.feed.live(after, (event) => {
    queue.push(event);
    wake();
  });
  const stopped = new Promise<never>((_, reject) => {
    if (options.stop.aborted) reject(new ListenStopped());
    options.stop.addEventListener('abort', () => reject(new ListenStopped()), { once: true });
  });
  stopped.catch(() => undefined);
  try {
    for (;;) {
      while (queue.length > 0) {
        if (queue.length > LIVE_BACKLOG) return;
        await acknowledge(queue[0]!);
        queue.shift();
      }
      await Promise.race([live.ended, stopped, new Promise<void>((resolve) => (wake = resolve))]);
    }
  } finally {
    await live.close().catch(() => undefined);
  }
}

/** Why a failure is worth retrying (the service unreachable, restarting, its token expired), or undefined if not. */
function transientReason(error: unknown): string | undefined {
  if (error instanceof LiveLost) return error.message;
  if (error instanceof LiveRefused) throw new ListenRefused(`the service refused the event stream: ${error.message}`);
  if (unreachable(error)) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    return String(cause?.code ?? cause?.message ?? error.message);
  }
  if (error instanceof CredentialsRefused) {
    if (error.status >= 500) return `${error.status} at /accesstoken/get`;
    throw new ListenRefused(error.message);
  }
  if (error instanceof GraphFailure) {
    if (error.status !== 200 || error.code === undefined || error.code === 'INTERNAL_SERVER_ERROR') return error.message;
    throw new ListenRefused(error.message);
  }
  return undefined;
}
