import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { freePort } from './free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Instances of the built service behind Debian's HAProxy with the repository's own `deploy/haproxy/haproxy.cfg`: what
 * the tests of several instances share (the load-balanced run, the rolling upgrade). PostgreSQL only: two processes
 * cannot share PGlite.
 */

/** HAProxy in front of the replicas, serving plain HTTP on `url` (and TLS with a self-signed certificate). */
export interface Balancer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts HAProxy on the given (free) port for the replicas' ports, in the order of the config's `gateway-a`, `gateway-b`,
 * … servers (PAYGRAPH_GATEWAY_A, _B, …). A replica that does not listen yet is simply down until its health checks
 * pass (`rise 2`, one a second), so a test may name the port of an instance it starts later.
 */
export async function startBalancer(port: number, replicaPorts: readonly number[]): Promise<Balancer> {
  const certDir = await mkdtemp(join(tmpdir(), 'lb-cert-'));
  const pem = join(certDir, 'lb.pem');
  const key = join(certDir, 'key.pem');
  const cert = join(certDir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  await writeFile(pem, (await readFile(cert, 'utf8')) + (await readFile(key, 'utf8')));
  const gateways = Object.fromEntries(
    replicaPorts.map((replica, i) => [`PAYGRAPH_GATEWAY_${String.fromCharCode(65 + i)}`, `127.0.0.1:${replica}`]),
  );
  const haproxy: ChildProcess = spawn('haproxy', ['-db', '-f', join(process.cwd(), 'deploy/haproxy/haproxy.cfg')], {
    env: {
      PATH: process.env.PATH,
      PAYGRAPH_LB_BIND: `127.0.0.1:${await freePort()}`,
      PAYGRAPH_TLS_CERT: pem,
      PAYGRAPH_LB_PLAIN_BIND: `127.0.0.1:${port}`,
      ...gateways,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => haproxy.once('exit', () => resolve()));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (haproxy.exitCode === null && haproxy.signalCode === null) haproxy.kill('SIGKILL');
      await exited;
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of a replica behind the balancer: PostgreSQL, the test environment, the balancer's address as its
 * public URL, its jobs on (at 50 ms, so deliveries follow quickly), metrics on a port of its own, and the balancer's
 * address trusted for X-Forwarded-For (docker-compose.yml's setting).
 */
export function replicaEnv(options: { databaseUrl: string; balancerPort: number; metricsPort: number }): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    PAYGRAPH_ENV: 'test',
    PUBLIC_URL: `http://127.0.0.1:${options.balancerPort}`,
    PAYGRAPH_LOG_REQUESTS: 'false',
    PAYGRAPH_JOB_INTERVAL_MS: '50',
    PAYGRAPH_RUN_JOBS: 'true',
    METRICS_PORT: String(options.metricsPort),
    PAYGRAPH_TRUSTED_PROXIES: '127.0.0.1',
  };
}

/** A metrics line of a replica, summed over its labels (`name{labels} value`); 0 when absent. */
export async function metricOf(metricsPort: number, name: string, labels: RegExp = /.*/): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let sum = 0;
  for (const match of text.matchAll(/^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/gm)) {
    if (match[1] === name && labels.test(match[2] ?? '')) sum += Number(match[3]);
  }
  return sum;
}

/** Waits for a condition a set of processes reaches (a replica up behind the balancer, a delivery), up to a deadline. */
export async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
