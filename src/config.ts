import ipaddr from 'ipaddr.js';

/** Limits of a GraphQL operation, checked before any resolver runs (the graph's query-limits rules apply them). */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  /** Each field costs 1, multiplied by the page size of every list above it. */
  maxCost: number;
  /** A document longer than this is refused before it is parsed. */
  maxDocumentBytes: number;
  /** graphql-js stops parsing a document with more tokens than this, before any rule walks it. */
  maxTokens: number;
  /**
   * Fields a document selects, each fragment counted where it is spread, checked before validation: validation's
   * work grows with the selections it compares, which fragments multiply (document-bounds.ts).
   */
  maxFields: number;
  /**
   * Fields with selections of their own that share one response name in one selection set (fragments merged), checked
   * before validation: graphql-js compares every pair of them, so 740 times `viewer { kind }` took 80 ms to 1.1 s.
   */
  maxRepeatedSelections: number;
}

/**
 * The introspection query GraphiQL sends is about 2 KB and 200 tokens, the dashboard's largest document under 1 KB;
 * the caps leave room for generous hand-written operations while bounding what one document can make us walk.
 */
export const defaultQueryLimits: QueryLimits = {
  maxDepth: 12,
  maxAliases: 30,
  maxCost: 50_000,
  maxDocumentBytes: 32 * 1024,
  maxTokens: 3_000,
  maxFields: 500,
  maxRepeatedSelections: 10,
};

export type PaygraphEnv = 'test' | 'production';

export interface Config {
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  env: PaygraphEnv;
  publicUrl: string;
  /** HMAC key for access tokens. Tests and the test environment may use the built-in development key. */
  tokenSecret: string;
  /** Access token lifetime: 1 hour in test, 24 hours in production (FACTS §3, §14.5); `PAYGRAPH_TOKEN_LIFETIME_SECONDS` overrides. */
  tokenLifetimeSeconds: number;
  /** How often the expiry job looks for payments nobody acted on, and the webhook outbox for new events and due deliveries. */
  jobIntervalMs: number;
  /**
   * Whether this process runs the background jobs (expiry, outbox dispatch, webhook delivery). Off, it serves
   * requests only: for API-only replicas beside worker replicas, and for tests that count one request's SQL.
   */
  runJobs: boolean;
  /**
   * `required`: every graph operation, on every transport, must be a registered document named by its id
   * (`PAYGRAPH_TRUSTED_DOCUMENTS`, README "Trusted documents"); `optional` (the default): documents are sent as text,
   * or named by the id of a registered one.
   */
  trustedDocuments: 'optional' | 'required';
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
  /** The one limiter of both faces (src/platform/rate-limit/). */
  rateLimits: RateLimitSettings;
  /** What one graphql-ws socket may hold: a frame, the wait for `connection_init`, open subscriptions. */
  socketLimits: SocketLimits;
  /** Outbound webhook deliveries: how long to wait for a receiver, and how to retry one that fails. */
  webhooks: WebhookSettings;
  /**
   * How long a claimed delivery is leased (renewed while its POST is in flight); unset, its kind's timeout and a
   * margin. A shorter lease lets another instance take over a stopped one's deliveries sooner.
   */
  deliveryLeaseMs?: number;
  /**
   * How long the PSP has to answer its make-payment callback before the payment is FAILED (FACTS §6: 15 s). Settable
   * so a test of the timeout need not wait the real 15 s.
   */
  pspCallbackTimeoutMs: number;
  /**
   * How long a merchant's shipping callback (checkout's dynamic shipping, Express's dynamic options) has to answer
   * while the user waits (FACTS §8: 8 s); no answer in time is a shop that sent no options for the address.
   */
  shippingCallbackTimeoutMs: number;
  /** Port of the Prometheus metrics endpoint (`/metrics`), apart from the service's own; 0: any free port. */
  metricsPort: number;
  /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
  shutdownTimeoutMs: number;
  /** How long a rotated client secret keeps working beside the new one, unless retired sooner by a command. */
  secretOverlapMs: number;
  /** When a payment needs someone to look at it (the graph's `paymentsNeedingAttention`, the dashboard, the gauge). */
  attention: AttentionThresholds;
  /** How long each kind of data that only serves delivery, replays or reports is kept (README, Data lifecycle). */
  retention: RetentionSettings;
}

/** What the prune keeps; each figure has its variable (README, Data lifecycle). */
export interface RetentionSettings {
  /** Deliveries and attempts are kept for the webhook retry window plus this much history. */
  deliveryHistoryMs: number;
  /** Idempotency records: at least 24 hours (a modification's key is answered from its payment's events after it). */
  idempotencyWindowMs: number;
  /** API quality counts: the days they cover. */
  apiQualityDays: number;
  /** A consent record after its data access ended (168 hours after approval): the proof that sharing was consented. */
  consentRecordMs: number;
  /** Personal data on a payment (Express shippingDetails, the profile link behind userDetails) after the payment ended. */
  paymentPersonalDataMs: number;
  /** How often an instance prunes (each prune is bounded batches; instances may prune at once). */
  pruneIntervalMs: number;
  /** Rows one bounded delete removes, its own statement and commit. */
  pruneBatchRows: number;
  /** Daily partitions of a time-partitioned table created ahead of today. */
  partitionsAhead: number;
}

/**
 * How long each reason may last before the payment needs attention. Webhook ages are measured on the sales unit's
 * clock from the event's time, so a test clock moves them; retries of a failing receiver go on meanwhile.
 */
export interface AttentionThresholds {
  /** An AUTHORIZED payment whose authorized webhook is not acknowledged (failing, or held back) this long after it. */
  authorizedWebhookMs: number;
  /** A capture whose webhook is not acknowledged this long after it. */
  captureWebhookMs: number;
  /**
   * A CREATED payment this long past its expiry and still not expired: the expiry job (every job interval) is behind
   * or not running anywhere.
   */
  expiryOverdueMs: number;
}

/** A number of points a key may spend per window. */
export interface RateLimitPolicy {
  points: number;
  windowSeconds: number;
}

export interface RateLimitSettings {
  /** Per API client (the access token's client id): a REST request costs 1 point, a graph operation its cost. */
  client: RateLimitPolicy;
  /** Per client address, for requests without a valid access token (token endpoint, pages, refused credentials). */
  address: RateLimitPolicy;
  /** ePayment create, capture, cancel and refund per reference and MSN (FACTS §1.9: 5 a minute). */
  modifications: RateLimitPolicy;
  /** ePayment get payment and get events per reference and subscription key (FACTS §1.9: 120 a minute). */
  reads: RateLimitPolicy;
  /** Client secrets checked and refused (the token endpoint, checkout), per client id and caller address. */
  secretFailures: RateLimitPolicy;
  /** A graph operation of this cost costs one point (at least one point each). */
  graphCostPerPoint: number;
  /** Load balancers whose `X-Forwarded-For` is believed (addresses or CIDR ranges); from anyone else it is ignored. */
  trustedProxies: string[];
  /** `memory`: per instance; `postgres`: shared by every instance through DATABASE_URL's database. */
  store: 'memory' | 'postgres';
}

export interface SocketLimits {
  /** The largest frame a socket may send, as HTTP bodies are capped; a larger one closes it (1009). */
  maxFrameBytes: number;
  /** A socket that sends no valid `connection_init` within this time is closed (4408). */
  connectionInitWaitMs: number;
  /** Subscriptions open at once on one socket; one more is refused with a graphql-ws error. */
  maxSubscriptions: number;
  /** Bytes a socket may leave unread across all its subscriptions; past this it is closed (1013) and its subscriptions end. */
  maxUnsentBytes: number;
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

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

function loadRetention(env: NodeJS.ProcessEnv): RetentionSettings {
  const idempotencyWindowMs = parseInterval('PAYGRAPH_IDEMPOTENCY_WINDOW_MS', env.PAYGRAPH_IDEMPOTENCY_WINDOW_MS ?? String(7 * DAY_MS));
  if (idempotencyWindowMs < DAY_MS) throw new ConfigError(`PAYGRAPH_IDEMPOTENCY_WINDOW_MS must be at least 24 hours (${DAY_MS})`);
  const partitionsAhead = parseInterval('PAYGRAPH_PARTITIONS_AHEAD', env.PAYGRAPH_PARTITIONS_AHEAD ?? '14');
  if (partitionsAhead < 2) throw new ConfigError('PAYGRAPH_PARTITIONS_AHEAD must be at least 2');
  return {
    deliveryHistoryMs: parseInterval('PAYGRAPH_DELIVERY_HISTORY_MS', env.PAYGRAPH_DELIVERY_HISTORY_MS ?? String(30 * DAY_MS)),
    idempotencyWindowMs,
    apiQualityDays: parseInterval('PAYGRAPH_API_QUALITY_DAYS', env.PAYGRAPH_API_QUALITY_DAYS ?? '90'),
    consentRecordMs: parseInterval('PAYGRAPH_CONSENT_RECORD_MS', env.PAYGRAPH_CONSENT_RECORD_MS ?? String(5 * 365 * DAY_MS)),
    paymentPersonalDataMs: parseInterval('PAYGRAPH_PAYMENT_PERSONAL_DATA_MS', env.PAYGRAPH_PAYMENT_PERSONAL_DATA_MS ?? String(30 * DAY_MS)),
    pruneIntervalMs: parseInterval('PAYGRAPH_PRUNE_INTERVAL_MS', env.PAYGRAPH_PRUNE_INTERVAL_MS ?? String(HOUR_MS)),
    pruneBatchRows: parseInterval('PAYGRAPH_PRUNE_BATCH_ROWS', env.PAYGRAPH_PRUNE_BATCH_ROWS ?? '1000'),
    partitionsAhead,
  };
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
    tokenLifetimeSeconds: parseSeconds(
      'PAYGRAPH_TOKEN_LIFETIME_SECONDS',
      env.PAYGRAPH_TOKEN_LIFETIME_SECONDS ?? (paygraphEnv === 'test' ? '3600' : '86400'),
    ),
    // It bounds the delay from commit to webhook delivery (median about half of it); the polls are index lookups.
    jobIntervalMs: parseInterval('PAYGRAPH_JOB_INTERVAL_MS', env.PAYGRAPH_JOB_INTERVAL_MS ?? '250'),
    runJobs: env.PAYGRAPH_RUN_JOBS !== 'false',
    trustedDocuments: parseTrustedDocuments(env.PAYGRAPH_TRUSTED_DOCUMENTS ?? 'optional'),
    flushIntervalMs: parseInterval('PAYGRAPH_FLUSH_INTERVAL_MS', env.PAYGRAPH_FLUSH_INTERVAL_MS ?? '2000'),
    logRequests: env.PAYGRAPH_LOG_REQUESTS !== 'false',
    graphqlLimits: defaultQueryLimits,
    subscriptionKeepAliveMs: parseInterval('PAYGRAPH_SUBSCRIPTION_KEEPALIVE_MS', env.PAYGRAPH_SUBSCRIPTION_KEEPALIVE_MS ?? '15000'),
    rateLimits: loadRateLimits(env, paygraphEnv),
    socketLimits: {
      maxFrameBytes: 1024 * 1024,
      connectionInitWaitMs: parseInterval('PAYGRAPH_WS_INIT_TIMEOUT_MS', env.PAYGRAPH_WS_INIT_TIMEOUT_MS ?? '5000'),
      maxSubscriptions: parseInterval('PAYGRAPH_WS_MAX_SUBSCRIPTIONS', env.PAYGRAPH_WS_MAX_SUBSCRIPTIONS ?? '100'),
      maxUnsentBytes: parseBytes('PAYGRAPH_WS_MAX_UNSENT_BYTES', env.PAYGRAPH_WS_MAX_UNSENT_BYTES ?? String(8 * 1024 * 1024)),
    },
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
    ...(env.PAYGRAPH_DELIVERY_LEASE_MS
      ? { deliveryLeaseMs: parseInterval('PAYGRAPH_DELIVERY_LEASE_MS', env.PAYGRAPH_DELIVERY_LEASE_MS) }
      : {}),
    pspCallbackTimeoutMs: parseInterval('PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS', env.PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS ?? '15000'),
    shippingCallbackTimeoutMs: parseInterval('PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS', env.PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS ?? '8000'),
    attention: {
      authorizedWebhookMs: parseInterval(
        'PAYGRAPH_ATTENTION_AUTHORIZED_WEBHOOK_MS',
        env.PAYGRAPH_ATTENTION_AUTHORIZED_WEBHOOK_MS ?? '900000',
      ),
      captureWebhookMs: parseInterval('PAYGRAPH_ATTENTION_CAPTURE_WEBHOOK_MS', env.PAYGRAPH_ATTENTION_CAPTURE_WEBHOOK_MS ?? '900000'),
      expiryOverdueMs: parseInterval('PAYGRAPH_ATTENTION_EXPIRY_OVERDUE_MS', env.PAYGRAPH_ATTENTION_EXPIRY_OVERDUE_MS ?? '60000'),
    },
    retention: loadRetention(env),
  };
}

function parseTrustedDocuments(value: string): Config['trustedDocuments'] {
  if (value !== 'optional' && value !== 'required')
    throw new ConfigError(`PAYGRAPH_TRUSTED_DOCUMENTS must be "optional" or "required", got "${value}"`);
  return value;
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
 * Production holds the platform's published ePayment limits (FACTS §1.9) and limits per client and address; the
 * test environment is generous (a test suite or a team shares one client), and every figure can be set.
 */
function loadRateLimits(env: NodeJS.ProcessEnv, paygraphEnv: PaygraphEnv): RateLimitSettings {
  const production = paygraphEnv === 'production';
  const window = parseInterval('PAYGRAPH_RATE_LIMIT_WINDOW_SECONDS', env.PAYGRAPH_RATE_LIMIT_WINDOW_SECONDS ?? '60');
  const policy = (name: string, productionPoints: number, testPoints: number, windowSeconds = window): RateLimitPolicy => ({
    points: parseInterval(name, env[name] ?? String(production ? productionPoints : testPoints)),
    windowSeconds,
  });
  const store = env.PAYGRAPH_RATE_LIMIT_STORE ?? 'memory';
  if (store !== 'memory' && store !== 'postgres')
    throw new ConfigError(`PAYGRAPH_RATE_LIMIT_STORE must be "memory" or "postgres", got "${store}"`);
  if (store === 'postgres' && !env.DATABASE_URL) throw new ConfigError('PAYGRAPH_RATE_LIMIT_STORE=postgres needs DATABASE_URL');
  const trustedProxies = (env.PAYGRAPH_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const proxy of trustedProxies) {
    if (!ipaddr.isValid(proxy.split('/')[0]!) || (proxy.includes('/') && !isCidr(proxy))) {
      throw new ConfigError(`PAYGRAPH_TRUSTED_PROXIES must list IP addresses or CIDR ranges, got "${proxy}"`);
    }
  }
  return {
    client: policy('PAYGRAPH_RATE_LIMIT_CLIENT', 6_000, 1_000_000),
    address: policy('PAYGRAPH_RATE_LIMIT_ADDRESS', 600, 1_000_000),
    modifications: policy('PAYGRAPH_RATE_LIMIT_MODIFICATIONS', 5, 10_000, 60),
    reads: policy('PAYGRAPH_RATE_LIMIT_READS', 120, 100_000, 60),
    secretFailures: policy('PAYGRAPH_RATE_LIMIT_SECRET_FAILURES', 10, 1_000, 15 * 60),
    graphCostPerPoint: parseInterval('PAYGRAPH_RATE_LIMIT_GRAPH_COST_PER_POINT', env.PAYGRAPH_RATE_LIMIT_GRAPH_COST_PER_POINT ?? '100'),
    trustedProxies,
    store,
  };
}

function isCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
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

function parseBytes(name: string, value: string): number {
  const bytes = Number(value);
  if (!Number.isInteger(bytes) || bytes < 1) throw new ConfigError(`${name} must be a positive integer of bytes, got "${value}"`);
  return bytes;
}

function parseSeconds(name: string, value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1) throw new ConfigError(`${name} must be a positive integer of seconds, got "${value}"`);
  return seconds;
}

function parseInterval(name: string, value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new ConfigError(`${name} must be a positive integer of milliseconds, got "${value}"`);
  return ms;
}
