/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { postOutbound } from '../../src/platform/delivery/outbound-post.js';
import { isPublicAddress, outboundUrlProblem, unicastOnlyLookup } from '../../src/platform/delivery/outbound-url.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

test.each([
  ['127.0.0.1', false],
  ['127.8.9.10', false],
  ['10.0.0.1', false],
  ['172.16.5.4', false],
  ['172.32.0.1', true],
  ['192.168.0.1', false],
  ['169.254.169.254', false],
  ['100.64.0.1', false],
  ['0.0.0.0', false],
  ['224.0.0.1', false],
  ['8.8.8.8', true],
  ['93.184.216.34', true],
  ['::1', false],
  ['::', false],
  ['fe80::1', false],
  ['fd12:3456::1', false],
  ['::ffff:10.0.0.1', false],
  ['::ffff:127.0.0.1', false],
  ['::ffff:8.8.8.8', false],
  ['64:ff9b::10.0.0.1', false],
  ['64:ff9b::8.8.8.8', false],
  ['64:ff9b:1::a00:1', false],
  ['2002:c0a8:101::1', false],
  ['2002:7f00:1::1', false],
  ['2002:808:808::1', false],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
  ['2001:4860:4860::8888', true],
  ['2003::1', true],
  ['2606:4700:4700::1111', true],
  // ipaddr.js ranges the hand-kept list missed (issue 20), and one of each class the policy names.
  ['fec0::1', false],
  ['100::1', false],
  ['192.88.99.1', false],
  ['10.255.255.255', false],
  ['127.255.0.1', false],
  ['fc00::1', false],
  ['fdff:ffff::1', false],
  ['169.254.0.1', false],
  ['100.127.255.254', false],
  ['100.128.0.1', true],
  ['198.18.0.1', false],
  ['255.255.255.255', false],
  ['::ffff:192.168.1.1', false],
  ['2001:db8::1', false],
  ['ff02::1', false],
  ['not-an-ip', false],
  ['0x7f.1', false],
])('isPublicAddress(%s) is %s', (address, expected) => {
  expect(isPublicAddress(address)).toBe(expected);
});

describe('production', () => {
  test.each([
    'http://127.0.0.1:8080/hook',
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://10.1.2.3/hook',
    'https://[fe80::1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[64:ff9b::192.168.1.1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[2002:c0a8:101::1]/hook',
    'https://[2002:a9fe:a9fe::]/hook',
    'http://93.184.216.34/hook',
    'https://[fec0::1]/',
    'https://[100::1]/',
    'https://192.88.99.1/',
    'https://10.0.0.1/',
    'https://127.0.0.2/',
    'https://[fc00::1]/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
  ])('refuses %s', async (url) => {
    expect(await outboundUrlProblem(url, 'production')).toBeDefined();
  });

  test('accepts HTTPS to a public address', async () => {
    expect(await outboundUrlProblem('https://93.184.216.34:8443/hook?x=1', 'production')).toBeUndefined();
  });

  test('resolves names: one that points inside the machine or network is refused at registration', async () => {
    // Containers map their own host name to a loopback or private address; either way it is not public.
    expect(await outboundUrlProblem(`https://${hostname()}/hook`, 'production')).toMatch(/loopback|private|resolve/);
  });

  test('refuses at connect time too, so no request reaches a loopback receiver', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const literal = await postOutbound(new URL(receiver.url('/x')), '{}', {}, { timeoutMs: 1_000, env: 'production' });
      expect(literal).toEqual({ error: expect.stringMatching(/^refused/) });
      // A name that passes the shape check but resolves to a non-public address is stopped by the lookup guard.
      const byName = await postOutbound(
        new URL(`https://${hostname()}:${receiver.port}/x`),
        '{}',
        {},
        { timeoutMs: 1_000, env: 'production' },
      );
      expect(byName).toEqual({ error: expect.stringMatching(/ENOTPUBLIC|ENOTFOUND|EAI_AGAIN/) });
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('the connect-time lookup', () => {
  /** A resolver that knows a few names, as DNS would answer them. */
  const names: Record<string, { address: string; family: number }[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'intranet.example': [{ address: '10.0.0.7', family: 4 }],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'v6-local.example': [{ address: 'fd00::7', family: 6 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '192.168.1.1', family: 4 },
    ],
  };
  const lookup = unicastOnlyLookup((hostname, _options, callback) => callback(null, names[hostname] ?? []));
  const connectTo = (hostname: string) =>
    new Promise<{ error?: string; address?: string }>((resolve) =>
      lookup(hostname, {}, (error, address) =>
        resolve(error ? { error: (error as Error & { code: string }).code } : { address: address as string }),
      ),
    );

  test.each(['intranet.example', 'metadata.example', 'v6-local.example', 'mixed.example', 'unknown.example'])(
    'a name resolving to a non-public address (%s) is refused at connect time',
    async (name) => {
      expect(await connectTo(name)).toEqual({ error: 'ENOTPUBLIC' });
    },
  );

  test('a name resolving to a public address connects to it', async () => {
    expect(await connectTo('public.example')).toEqual({ address: '93.184.216.34' });
  });
});

describe('test environment', () => {
  test('allows plain HTTP to loopback on any port, and nothing else over plain HTTP', async () => {
    expect(await outboundUrlProblem('http://127.0.0.1:1/hook', 'test')).toBeUndefined();
    expect(await outboundUrlProblem('http://localhost:65535/hook', 'test')).toBeUndefined();
    expect(await outboundUrlProblem('http://merchant.example/hook', 'test')).toMatch(/HTTPS/);
    expect(await outboundUrlProblem('https://192.168.1.1/hook', 'test')).toMatch(/private/);
  });

  test('a POST is bounded by its timeout and does not follow redirects', async () => {
    const requested: string[] = [];
    // A receiver that hangs on /slow, and moves /moved to /followed, which a client following redirects would ask for.
    const server = createServer((req, res) => {
      requested.push(`${req.method} ${req.url}`);
      if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 1_000).unref();
      else if (req.url === '/moved') res.writeHead(302, { Location: '/followed' }).end();
      else res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await postOutbound(new URL(`${base}/slow`), '{}', {}, { timeoutMs: 100, env: 'test' })).toEqual({
        error: 'timeout: no response within 100 ms',
      });
      expect(await postOutbound(new URL(`${base}/moved`), '{}', {}, { timeoutMs: 1_000, env: 'test' })).toEqual({ statusCode: 302 });
      expect(requested.filter((request) => request !== 'POST /slow')).toEqual(['POST /moved']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
