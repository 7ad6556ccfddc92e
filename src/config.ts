/** Limits of a GraphQL operation, checked before any resolver runs (the graph's query-limits rules apply them). */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  /** Each field costs 1, multiplied by the page size of every list above it. */
  maxCost: number;
}

export const defaultQueryLimits: QueryLimits = { maxDepth: 12, maxAliases: 30, maxCost: 50_000 };

export type PaygraphEnv = 'test' | 'production';

export interface Config {
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  env: PaygraphEnv;
  publicUrl: string;
  /** HMAC key for access tokens. Tests and the test environment may use the built-in development key. */
  tokenSecret: string;
  /** Access token lifetime: 1 hour in test, 24 hours in production (FACTS §3). */
  tokenLifetimeSeconds: number;
  /** How often the expiry job looks for payments nobody acted on, and the webhook outbox for new events and due deliveries. */
  jobIntervalMs: number;
  /**
   * Whether this process runs the background jobs (expiry, outbox dispatch, webhook delivery). Off, it serves
   * requests only: for API-only replicas beside worker replicas, and for tests that count one request's SQL.
   */
  runJobs: boolean;
  /**
   * How often every instance, whether or not it runs jobs, writes what it holds in memory to the database (API
   * quality counts): what a crash of the instance can lose.
   */
  flushIntervalMs: number;
  logRequests: boolean;
  /** Depth, alias and cost caps of graph operations, on HTTP and graphql-ws alike. */
  graphqlLimits: QueryLimits;
  /** Interval of WebSocket pings to subscribers; a subscriber that misses one pong in that time is dropped. */
  subscriptionKeepAliveMs: number;
  /** Outbound webhook deliveries: how long to wait for a receiver, and how to retry one that fails. */
  webhooks: WebhookSettings;
  /** Port of the Prometheus metrics endpoint (`/metrics`), apart from the service's own; 0: any free port. */
  metricsPort: number;
  /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
  shutdownTimeoutMs: number;
  /** How long a rotated client secret keeps working beside the new one, unless retired sooner by a command. */
  secretOverlapMs: number;
}

export interface WebhookSettings {
  /** Response timeout of one POST (FACTS §2: 10 s). */
  timeoutMs: number;
  /** Delay before the first retry; each further retry doubles it, with jitter, up to `maxRetryDelayMs`. */
  firstRetryDelayMs: number;
  maxRetryDelayMs: number;
  /** How long after its event a delivery is still retried before it is marked failed (FACTS §2: 7 days). */
  retryWindowMs: number;
}

const DEVELOPMENT_TOKEN_SECRET = 'paygraph-test-environment-token-key-not-for-production';

export class ConfigError extends Error {}

export function loadConfig(processEnv: NodeJS.ProcessEnv = process.env): Config {
  const env = withoutEmptyValues(processEnv);
  const port = parsePort(env.PORT ?? '8080');
  const paygraphEnv = env.PAYGRAPH_ENV ?? 'test';
  if (paygraphEnv !== 'test' && paygraphEnv !== 'production') {
    throw new ConfigError(`PAYGRAPH_ENV must be "test" or "production", got "${paygraphEnv}"`);
  }
  const tokenSecret = env.PAYGRAPH_TOKEN_SECRET ?? (paygraphEnv === 'test' ? DEVELOPMENT_TOKEN_SECRET : '');
  if (Buffer.byteLength(tokenSecret, 'utf8') < 32) {
    throw new ConfigError('PAYGRAPH_TOKEN_SECRET must be set to at least 32 bytes in production');
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${publicUrl}"`);
  }
  if (paygraphEnv === 'production') refuseUnsafeProduction(env, publicUrl);
  return {
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? './data',
    env: paygraphEnv,
    publicUrl,
    tokenSecret,
    tokenLifetimeSeconds: paygraphEnv === 'test' ? 3600 : 86400,
    // It bounds the delay from commit to webhook delivery (median about half of it); the polls are index lookups.
    jobIntervalMs: parseInterval('PAYGRAPH_JOB_INTERVAL_MS', env.PAYGRAPH_JOB_INTERVAL_MS ?? '250'),
    runJobs: env.PAYGRAPH_RUN_JOBS !== 'false',
    flushIntervalMs: parseInterval('PAYGRAPH_FLUSH_INTERVAL_MS', env.PAYGRAPH_FLUSH_INTERVAL_MS ?? '2000'),
    logRequests: env.PAYGRAPH_LOG_REQUESTS !== 'false',
    graphqlLimits: defaultQueryLimits,
    subscriptionKeepAliveMs: parseInterval('PAYGRAPH_SUBSCRIPTION_KEEPALIVE_MS', env.PAYGRAPH_SUBSCRIPTION_KEEPALIVE_MS ?? '15000'),
    shutdownTimeoutMs: parseInterval('PAYGRAPH_SHUTDOWN_TIMEOUT_MS', env.PAYGRAPH_SHUTDOWN_TIMEOUT_MS ?? '25000'),
    metricsPort: parsePort(env.METRICS_PORT ?? '9464', 'METRICS_PORT'),
    secretOverlapMs: parseInterval('PAYGRAPH_SECRET_OVERLAP_MS', env.PAYGRAPH_SECRET_OVERLAP_MS ?? String(24 * 60 * 60 * 1000)),
    webhooks: {
      timeoutMs: parseInterval('PAYGRAPH_WEBHOOK_TIMEOUT_MS', env.PAYGRAPH_WEBHOOK_TIMEOUT_MS ?? '10000'),
      firstRetryDelayMs: parseInterval('PAYGRAPH_WEBHOOK_FIRST_RETRY_MS', env.PAYGRAPH_WEBHOOK_FIRST_RETRY_MS ?? '2000'),
      maxRetryDelayMs: parseInterval('PAYGRAPH_WEBHOOK_MAX_RETRY_MS', env.PAYGRAPH_WEBHOOK_MAX_RETRY_MS ?? String(60 * 60 * 1000)),
      retryWindowMs: parseInterval(
        'PAYGRAPH_WEBHOOK_RETRY_WINDOW_MS',
        env.PAYGRAPH_WEBHOOK_RETRY_WINDOW_MS ?? String(7 * 24 * 60 * 60 * 1000),
      ),
    },
  };
}

/**
 * Production is refused on settings meant only for trying the service out: the embedded database (one process, on
 * the container's disk) and a public URL that is not https (the links it hands out carry tokens).
 */
function refuseUnsafeProduction(env: NodeJS.ProcessEnv, publicUrl: string): void {
  if (!env.DATABASE_URL) {
    throw new ConfigError('DATABASE_URL must be set in production (the embedded database is for trying the service out)');
  }
  if (!/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  if (!env.PUBLIC_URL) throw new ConfigError('PUBLIC_URL must be set in production to the https URL clients reach the service at');
  if (!publicUrl.startsWith('https://')) throw new ConfigError(`PUBLIC_URL must be an https URL in production, got "${publicUrl}"`);
}

/**
 * An empty variable counts as unset: `PORT=` in a compose file or `.env` means "the default", and taken as a
 * value it would quietly become port 0 (`Number('')`), a random port nobody is told about.
 */
function withoutEmptyValues(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
}

function parsePort(value: string, name = 'PORT'): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

function parseInterval(name: string, value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new ConfigError(`${name} must be a positive integer of milliseconds, got "${value}"`);
  return ms;
}
