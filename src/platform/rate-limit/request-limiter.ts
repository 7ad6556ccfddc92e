import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config, RateLimitPolicy, RateLimitSettings } from '../../config.js';
import { logError } from '../../log.js';
import type { RateLimitState } from './rate-limit-fields.js';

export type PolicyName = 'client' | 'address' | 'modifications' | 'reads' | 'secretFailures';
const POLICIES: readonly PolicyName[] = ['client', 'address', 'modifications', 'reads', 'secretFailures'];

/** How the shared store's connections name themselves to PostgreSQL (`pg_stat_activity.application_name`). */
export const RATE_LIMIT_APPLICATION_NAME = 'paygraph rate limiter';

export type Verdict = { allowed: boolean; state: RateLimitState };

/**
 * The one limiter of both faces: a fixed-window counter per policy and key (rate-limiter-flexible). In memory by
 * default, so each instance counts on its own (N instances admit up to N times a limit); with
 * `PAYGRAPH_RATE_LIMIT_STORE=postgres` the counters live in the database every instance shares (table
 * `rate_limit`, which a platform migration creates), with an in-memory counter taking over while the database cannot answer.
 */
export class RequestLimiter {
  private constructor(
    private readonly settings: RateLimitSettings,
    private readonly buckets: Record<PolicyName, RateLimiterAbstract>,
    private readonly pool: pg.Pool | undefined,
  ) {}

  static create(config: Config): RequestLimiter {
    const settings = config.rateLimits;
    const memory = (name: PolicyName, policy: RateLimitPolicy) =>
      new RateLimiterMemory({ keyPrefix: name, points: policy.points, duration: policy.windowSeconds });
    if (settings.store === 'memory' || !config.databaseUrl) {
      const buckets = {} as Record<PolicyName, RateLimiterAbstract>;
      for (const name of POLICIES) buckets[name] = memory(name, settings[name]);
      return new RequestLimiter(settings, buckets, undefined);
    }
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4, application_name: RATE_LIMIT_APPLICATION_NAME });
    // An idle connection the server ends (a restart, a terminated backend, a dropped database) is reported on the
    // pool; without a listener that report is an unhandled 'error' that ends the process. The pool replaces the
    // connection at the next charge, and a charge that fails meanwhile is counted in memory (`insuranceLimiter`).
    pool.on('error', (error) => logError('rate limiter lost a database connection', error));
    // The platform's migrations create `rate_limit` in the limiter's own shape: a limiter left to create it runs DDL at
    // start, and five at once (or another instance's) collide on PostgreSQL.
    const buckets = {} as Record<PolicyName, RateLimiterAbstract>;
    for (const name of POLICIES) {
      const policy = settings[name];
      buckets[name] = new RateLimiterPostgres({
        storeClient: pool,
        tableName: 'rate_limit',
        tableCreated: true,
        keyPrefix: name,
        points: policy.points,
        duration: policy.windowSeconds,
        clearExpiredByTimeout: name === 'client',
        insuranceLimiter: memory(name, policy),
      });
    }
    return new RequestLimiter(settings, buckets, pool);
  }

  /** Spends `points` of the key's quota under a policy; a refused request counts too, so hammering does not help. */
  async charge(policy: PolicyName, key: string, points = 1): Promise<Verdict> {
    try {
      return { allowed: true, state: this.stateOf(policy, await this.buckets[policy].consume(key, points)) };
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return { allowed: false, state: this.stateOf(policy, outcome) };
      // A limiter that cannot count lets the request through rather than refusing every client.
      logError('rate limiter failed', outcome, { policy });
      return { allowed: true, state: this.unknownState(policy) };
    }
  }

  /** Gives back a point `charge` took: a reservation whose outcome turned out not to count (a secret accepted). */
  async refund(policy: PolicyName, key: string): Promise<void> {
    await this.buckets[policy].reward(key, 1).catch((error: unknown) => logError('rate limiter failed', error, { policy }));
  }

  /** The points a graph operation of this cost spends: one per `graphCostPerPoint`, at least one. */
  graphPoints(cost: number): number {
    return Math.max(1, Math.ceil(cost / this.settings.graphCostPerPoint));
  }

  async close(): Promise<void> {
    await this.pool?.end();
  }

  private stateOf(policy: PolicyName, res: RateLimiterRes): RateLimitState {
    const { points, windowSeconds } = this.settings[policy];
    return {
      policy,
      quota: points,
      windowSeconds,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.ceil(res.msBeforeNext / 1000),
    };
  }

  private unknownState(policy: PolicyName): RateLimitState {
    const { points, windowSeconds } = this.settings[policy];
    return { policy, quota: points, windowSeconds, remaining: points, resetSeconds: windowSeconds };
  }
}
