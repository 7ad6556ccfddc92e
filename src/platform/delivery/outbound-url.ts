import { lookup as dnsLookup } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PaygraphEnv } from '../../config.js';

/**
 * Where the service may send requests of a merchant's choosing (webhooks, callbacks, shipping options). One policy
 * for registration and for the call itself, so a URL accepted at registration is judged the same way when used:
 * - HTTPS only; in the test environment also plain HTTP to a loopback address, on any port, for local receivers.
 * - Only a global unicast address: ipaddr.js classifies it, and anything its `range()` names other than `unicast`
 *   (private, loopback, link-local, carrier-grade NAT, reserved such as 192.88.99.0/24, the deprecated site-local
 *   fec0::/10, discard-only 100::/64, unique local, 6to4, Teredo, NAT64, IPv4-mapped, multicast, ...) is refused.
 *   An IPv4-mapped or -embedding IPv6 address is refused whole rather than decoded: no public receiver needs one.
 *   Production resolves the name at registration and again on every connection (see `publicOnlyLookup`), so a
 *   name that resolves, or later points, inside the network is refused at connect time too.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address.split('%')[0]!) === 0) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** The checks that need no DNS: scheme, credentials, and address literals. Undefined when the URL may be used. */
export function outboundUrlShapeProblem(url: URL, env: PaygraphEnv): string | undefined {
  if (url.username || url.password) return 'Must not contain credentials';
  const host = bareHost(url.hostname);
  if (env === 'test' && isLoopbackHost(host)) return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'Must use HTTPS';
  if (url.protocol !== 'https:')
    return env === 'test' ? 'Must use HTTPS (plain HTTP only to a loopback address in the test environment)' : 'Must use HTTPS';
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return 'Must not point to a loopback, private or link-local address';
  }
  return undefined;
}

/** Registration's check: the URL is absolute, allowed, and (in production) its name resolves to public addresses only. */
export async function outboundUrlProblem(raw: unknown, env: PaygraphEnv): Promise<string | undefined> {
  if (typeof raw !== 'string' || raw.trim() === '') return 'Required';
  if (raw.length > 2048) return 'Must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be a valid absolute URL';
  }
  const shape = outboundUrlShapeProblem(url, env);
  if (shape || env !== 'production') return shape;
  const host = bareHost(url.hostname);
  if (isIP(host) !== 0) return undefined;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) return 'The host name does not resolve';
  if (addresses.some((a) => !isPublicAddress(a.address))) return 'Must not point to a loopback, private or link-local address';
  return undefined;
}

type Resolve = (
  hostname: string,
  options: { all: true },
  callback: (error: Error | null, addresses: { address: string; family: number }[]) => void,
) => void;

/**
 * A `lookup` for outbound connections that refuses any name with a non-public address at connect time, so DNS
 * that changes after registration (rebinding), or a name that resolves inside the network, cannot turn a webhook
 * into a request inside the network. The socket connects only to an address this function approved.
 */
export function unicastOnlyLookup(resolve: Resolve = dnsLookup as unknown as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      const refused = wanted.find((a) => !isPublicAddress(a.address));
      if (refused || wanted.length === 0) {
        return callback(
          Object.assign(new Error(`refused to connect to non-public address ${refused?.address ?? '(none)'}`), { code: 'ENOTPUBLIC' }),
          '',
        );
      }
      if (options.all) return callback(null, wanted);
      return callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}

export const publicOnlyLookup: LookupFunction = unicastOnlyLookup();
