import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'overview' }
  | { page: 'payment'; reference: string }
  | { page: 'webhooks' }
  | { page: 'attention' }
  | { page: 'events' }
  | { page: 'search'; params: URLSearchParams };

/**
 * The page shown, from the location's fragment: `#/payments/<reference>`, `#/webhooks`, `#/attention`, `#/events`, `#/search?<filters>`, else
 * the overview. A search's filters live in the fragment, so a search can be bookmarked, shared and gone back to.
 */
export function parseRoute(hash: string): Route {
  const payment = /^#\/payments\/(.+)$/.exec(hash);
  if (payment) return { page: 'payment', reference: decodeURIComponent(payment[1]!) };
  if (hash === '#/webhooks') return { page: 'webhooks' };
  if (hash === '#/attention') return { page: 'attention' };
  if (hash === '#/events') return { page: 'events' };
  const search = /^#\/search(?:\?(.*))?$/.exec(hash);
  if (search) return { page: 'search', params: new URLSearchParams(search[1] ?? '') };
  return { page: 'overview' };
}

export function paymentHref(reference: string): string {
  return `#/payments/${encodeURIComponent(reference)}`;
}

export function searchHref(params: URLSearchParams): string {
  const query = params.toString();
  return query ? `#/search?${query}` : '#/search';
}

export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
