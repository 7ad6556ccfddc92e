import ipaddr from 'ipaddr.js';

/**
 * The address a request came from. Behind a load balancer the socket's peer is the balancer, so the client is
 * read from `X-Forwarded-For`, walking it from the right (the hop nearest to us) past trusted proxies only: an
 * entry a client wrote itself sits left of the first untrusted hop and is never believed.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: readonly string[],
): string {
  const trusted = trustedProxies.map(parseRange);
  let current = normalize(peer ?? '');
  if (trusted.length === 0 || forwardedFor === undefined) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => normalize(hop.trim()))
    .filter((hop) => hop !== '');
  while (isTrusted(current, trusted) && hops.length > 0) current = hops.pop()!;
  return current;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(proxy: string): Range {
  if (proxy.includes('/')) return ipaddr.parseCIDR(proxy);
  const address = ipaddr.process(proxy);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

function isTrusted(address: string, trusted: readonly Range[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return trusted.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function normalize(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}
