import { useEffect, useState } from 'preact/hooks';

export type Route = { page: 'overview' } | { page: 'payment'; reference: string } | { page: 'webhooks' };

/** The page shown, from the location's fragment: `#/payments/<reference>`, `#/webhooks`, else the overview. */
export function parseRoute(hash: string): Route {
  const payment = /^#\/payments\/(.+)$/.exec(hash);
  if (payment) return { page: 'payment', reference: decodeURIComponent(payment[1]!) };
  if (hash === '#/webhooks') return { page: 'webhooks' };
  return { page: 'overview' };
}

export function paymentHref(reference: string): string {
  return `#/payments/${encodeURIComponent(reference)}`;
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
