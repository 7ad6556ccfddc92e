import type { Services } from '../../platform/context.js';
import { AppError } from '../../platform/errors/app-error.js';
import { liveKey, waitForStateChange, type LiveReading, type LiveState } from '../../platform/events/wait-for-state.js';
import type { PageRoute } from '../../platform/rest/page-route.js';
import type { PageAssets } from './assets.js';
import { ownPagePost } from './same-origin.js';
import { walletRefusal } from './wallet-document.js';

/**
 * The route a wallet page's script long-polls to keep its shown state live (`liveStatePage` on the page). It posts
 * the token (in the body: it is already in the page's own address, and no new URL carries it) and the state it
 * shows (its `liveKey`), and gets `{state, awaitsUser, settled, shownAmount?, key}` back once that differs, or unchanged after a while. The token
 * names the one payment or session, so the answer is about nothing else. 204 when the client left before the answer.
 */
export function liveStateRoute(
  services: Services,
  assets: PageAssets,
  pattern: string,
  read: (token: string) => Promise<LiveReading | undefined>,
): PageRoute {
  const refusal = () => walletRefusal(assets, 'This request may only be sent from the page itself.');
  return ownPagePost(services.config.publicUrl, pattern, refusal, async (request) => {
    const form = new URLSearchParams(request.rawBody.toString('utf8'));
    const token = form.get('token');
    if (!token) throw AppError.validation([{ name: 'token', reason: 'The token is required' }]);
    const live = await waitForStateChange(services.events, () => read(token), form.get('state') ?? '', { signal: request.signal });
    if (request.signal?.aborted) return { status: 204 };
    if (!live) throw new AppError('NOT_FOUND', 'This link is not valid.', [{ name: 'token', reason: 'Unknown token' }]);
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: { ...live, key: liveKey(live) } };
  });
}

/**
 * The page's data island for its script: where to ask, the state the page shows (its key), and the amount the
 * server last gave (`shownAmount`: the script rewrites the page's amount only when the server's changes, so an amount
 * the page itself follows, such as a checkout's selected shipping, stands). Absent once it is final.
 */
export function liveStatePage(
  endpoint: string,
  live: Pick<LiveState, 'state' | 'settled' | 'shownAmount'>,
): { endpoint: string; state: string; shownAmount?: string } | undefined {
  if (live.settled) return undefined;
  return { endpoint, state: liveKey(live), ...(live.shownAmount === undefined ? {} : { shownAmount: live.shownAmount }) };
}
