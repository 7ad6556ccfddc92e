import { lookup as dnsLookup } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { PaygraphEnv } from '../../config.js';

/**
 * Where the service may send requests of a merchant's choosing (webhooks, callbacks). One policy for registration
 * and for the call itself, so a URL accepted at registration is judged the same way when used:
 * - HTTPS only; in the test environment also plain HTTP to a loopback address, on any port, for local receivers.
 * - Never a private, loopback, link-local or otherwise non-public address (loopback allowed in test only).
 *   Production resolves the name at registration and again on every connection (see `publicOnlyLookup`),
 *   so a name that later points inside the network is refused too.
 */
// Two lists: a BlockList also matches IPv4 addresses against IPv6 rules (as mapped addresses), which would make
// the ::ffff:0:0/96 rule below refuse every IPv4 address.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
// Unspecified, loopback, IPv4-compatible and -mapped, NAT64 (well-known and local-use), 6to4 and Teredo: all of
// these carry an IPv4 address that may be private (2002:c0a8:0101:: is 192.168.1.1 through a 6to4 relay), and no
// public webhook receiver needs them, so they are refused whole rather than decoded. Then unique local,
// link-local, multicast, documentation.
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  NON_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
NON_PUBLIC_V6.addAddress('::1', 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC_V4.check(address, 'ipv4');
  return family === 6 && !NON_PUBLIC_V6.check(address, 'ipv6');
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

/**
 * A `lookup` for outbound connections that refuses non-public addresses at connect time, so DNS that changes
 * after registration (rebinding) cannot turn a webhook into a request inside the network.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      return callback(
        Object.assign(new Error(`refused to connect to non-public address ${refused?.address ?? '(none)'}`), { code: 'ENOTPUBLIC' }),
        '',
      );
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
