import type { RetentionRule } from './lifecycle/retention.js';
import type { Metrics } from './observability/metrics.js';
import type { Clock } from './clock.js';
import type { Config } from '../config.js';
import type { Principal } from './auth/principal.js';
import type { CoverageProvider, SqlCondition } from './auth/coverage.js';
import type { SalesUnitScope, TenancyScope } from './auth/tenancy-scope.js';
import type { Em, Orm } from './db/orm.js';
import type { DomainEventBus } from './events/domain-event-bus.js';
import type { LoaderRegistry } from './graph/loader-registry.js';
import type { NodeRegistry } from './graph/node-registry.js';
import type { RequestLimiter } from './rate-limit/request-limiter.js';
import type { TestClocks } from './test-clocks.js';

export type { MerchantPrincipal, Principal } from './auth/principal.js';

/** Process-wide collaborators, built once by the app. */
export interface Services {
  config: Config;
  orm: Orm;
  /** Real time (tests: a clock they move): access tokens, deliveries, and every sales unit whose test clock never moved. */
  clock: Clock;
  /** Which sales units a principal covers (coverage.ts), as registered by the domain that knows them. */
  salesUnits: CoverageProvider;
  /** Each sales unit's time (its test clock in the test environment): what decides for that unit's objects. */
  testClocks: TestClocks;
  /** Committed events of every domain and instance, for live subscribers in this process. */
  events: DomainEventBus;
  /** `node(id:)`'s finders, registered by the modules. */
  nodes: NodeRegistry<RequestContext>;
  /** The one rate limiter of both faces (src/platform/rate-limit/). */
  rateLimiter: RequestLimiter;
  /** Runs every module's background job once, now, and resolves when they are done (the test clock's advance). */
  runJobsNow?: () => Promise<void>;
  /** When the jobs next have work among a unit's objects (Scheduler.nextDueFor): where the test clock's advance stops. */
  nextJobDueFor?: (msn: string) => Promise<Date | null | undefined>;
  /** Prometheus metrics of this app (platform/observability); absent where a test builds services by hand. */
  metrics?: Metrics;
  /** Every module's retention rules (README, Data lifecycle): what the prune job, the command line and the graph prune. */
  retention?: readonly RetentionRule[];
}

/**
 * What every domain service takes first: who is calling, what it may see (its tenancy scope: filter with
 * `scoped(ctx)`), and with what. Built by `createRequestContext` alone, the same way for every face. `S` is the scope
 * as the face narrowed it: a service that works on one sales unit's rows takes a `SalesUnitContext`.
 */
export interface RequestContext<S extends TenancyScope = TenancyScope> {
  principal: Principal;
  scope: S;
  em: Em;
  /** The time of the sales unit the request acts for (its test clock, where it was moved). */
  clock: Clock;
  config: Config;
  traceId: string;
  loaders: LoaderRegistry;
  /**
   * The sales units this request covers, as a condition on an SQL expression naming a unit's MSN: the principal's
   * coverage (coverage.ts), narrowed to the merchant of the MSN it acts for, if it names one. Every list of tenant
   * data filters with it, so a list shows exactly what the single reads allow. `readsMerchantData`: only units whose
   * merchant's own data the caller may read (a partner: with the merchant's consent). `wholePrincipal`: every unit
   * the principal covers, whichever it acts for (the units it may name).
   */
  covered(msnColumn: string, options?: { readsMerchantData?: boolean; wholePrincipal?: boolean }): SqlCondition;
}

/** A request acting for one sales unit: what `scoped(ctx)` takes. */
export type SalesUnitContext = RequestContext<SalesUnitScope>;
