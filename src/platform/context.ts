import type { Metrics } from './observability/metrics.js';
import type { Clock } from './clock.js';
import type { Config } from '../config.js';
import type { Principal } from './auth/principal.js';
import type { SalesUnitAccess } from './auth/sales-unit-access.js';
import type { TenancyScope } from './auth/tenancy-scope.js';
import type { Em, Orm } from './db/orm.js';
import type { DomainEventBus } from './events/domain-event-bus.js';
import type { LoaderRegistry } from './graph/loader-registry.js';
import type { NodeRegistry } from './graph/node-registry.js';

export type { MerchantPrincipal, Principal } from './auth/principal.js';

/** Process-wide collaborators, built once by the app. */
export interface Services {
  config: Config;
  orm: Orm;
  clock: Clock;
  salesUnits: SalesUnitAccess;
  /** Committed events of every domain and instance, for live subscribers in this process. */
  events: DomainEventBus;
  /** The same bus as `events`, under the name tests and tools used while only payments had events. */
  paymentEvents: DomainEventBus;
  /** `node(id:)`'s finders, registered by the modules. */
  nodes: NodeRegistry<RequestContext>;
  /** Runs every module's background job once, now, and resolves when they are done (the test clock's advance). */
  runJobsNow?: () => Promise<void>;
  /** Prometheus metrics of this app (platform/observability); absent where a test builds services by hand. */
  metrics?: Metrics;
}

/**
 * What every domain service takes first: who is calling, what it may see (its tenancy scope: filter with
 * `scoped(ctx)`), and with what. Built by `createRequestContext` alone, the same way for every face.
 */
export interface RequestContext {
  principal: Principal;
  scope: TenancyScope;
  em: Em;
  clock: Clock;
  config: Config;
  traceId: string;
  loaders: LoaderRegistry;
}
