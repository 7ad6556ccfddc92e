import type { RetentionRule } from './lifecycle/retention.js';
import type { IExecutableSchemaDefinition } from '@graphql-tools/schema';
import type { CoverageProvider } from './auth/coverage.js';
import type { RequestContext, Services } from './context.js';
import type { Em } from './db/orm.js';
import type { EntityDefinition, MigrationEntry } from './db/schema-parts.js';
import type { CallbackKind } from './delivery/callback-kinds.js';
import type { DeliveryChannel } from './delivery/delivery-channel.js';
import type { EventProjector } from './events/event-projectors.js';
import type { EventTypeDefinition } from './events/event-types.js';
import type { NodeFinder } from './graph/node-registry.js';
import type { Job } from './jobs/scheduler.js';
import type { DatabaseGauge } from './observability/metrics.js';
import type { RateLimitedRoute } from './rate-limit/rate-limited-route.js';
import type { PageRoute } from './rest/page-route.js';
import type { RequestObserver } from './rest/request-observer.js';
import type { RestInterface } from './rest/rest-interface.js';
import type { StateMachine } from './state-machine.js';

type ResolverMaps = NonNullable<IExecutableSchemaDefinition['resolvers']>;
export type ResolverMap = Exclude<ResolverMaps, readonly unknown[]>;

/**
 * What a domain brings to the service: its manifest, `src/modules/<domain>.module.ts`, on the composition floor
 * above the domain's services and its faces (routes, pages, resolvers), which it assembles. The app loops over the
 * list in `src/modules.ts`, so a new domain adds its folder, its manifest and one line there: nothing in the
 * platform names it. Error codes register themselves when the domain's `<domain>.errors.ts` is imported by its
 * manifest; DataLoaders are declared beside the data they load (`defineLoader`); the SDL is the domain's file in
 * `schema/`.
 */
export interface DomainModule {
  readonly name: string;
  readonly entities?: readonly EntityDefinition[];
  /**
   * The migrations of the domain's own tables, in `src/<domain>/migrations/`: one changes only the tables its module
   * owns (those its entities map or its migrations create). The platform's first migrations created the early
   * domains' tables; applied, they stay where they are, and those domains' next migrations live in their own folders.
   */
  readonly migrations?: readonly MigrationEntry[];
  /**
   * The domain's REST interface: its prefix, error format, auth, header rules and routes. A public API spread over
   * two prefixes (the settlement ledger's `/settlement/v1` and `/report/v1`) declares one interface per prefix.
   */
  routes?(services: Services): RestInterface | readonly RestInterface[];
  /** Pages a browser opens (HTML, form posts, assets): routes outside every REST interface. */
  pages?(services: Services): PageRoute[];
  /** Resolver maps for the domain's part of the graph; merged with every other module's. */
  readonly resolvers?: readonly ResolverMap[];
  /**
   * How `node(id:)` finds this domain's Relay nodes, by type name: the key is the global id's key part. Each
   * finder applies the caller's scope, so another tenant's node is null like a missing one.
   */
  readonly nodes?: Readonly<Record<string, NodeFinder<RequestContext>>>;
  /** The domain's fixed data of the test environment (TEST-ENVIRONMENT.md); idempotent, run at every start in test only. */
  seedTestEnvironment?(em: Em, now: Date): Promise<void>;
  /** Background jobs (idempotent, safe on several instances); run by each instance that runs jobs. */
  jobs?(services: Services): Job[];
  /**
   * Work on this process's own memory (flushing what it counted to the database): not shared work another
   * instance could do, so every instance runs it every `flushIntervalMs`, whether or not it runs the jobs.
   */
  instanceJobs?(services: Services): Job[];
  /**
   * Which sales units a principal covers (coverage.ts): given by the one domain that knows sales units, and asked by
   * the request front of every interface and by every list of tenant data.
   */
  readonly coverage?: CoverageProvider;
  /** The domain's transition tables; the app checks each at start (an unknown or unreachable state fails the boot). */
  readonly stateMachines?: readonly StateMachine<string>[];
  /**
   * The events the domain records in the outbox (through `recordEvent`), per stream type: which of them webhooks may
   * subscribe to, and the body a webhook of one carries.
   */
  readonly eventTypes?: readonly EventTypeDefinition[];
  /** Rows the domain derives from other domains' events, written in the flush (and transaction) that records them. */
  readonly projectors?: readonly EventProjector[];
  /** Told of every answered request, after it is sent (API quality counts them in memory; no SQL per request). */
  requestObserver?(services: Services): RequestObserver;
  /** Runs when the app closes, after the server and jobs stopped and before the database closes (flush what is held in memory). */
  onClose?(services: Services): Promise<void>;
  /** Routes held to a published per-resource limit (the ePayment limits per reference), besides the per-client one. */
  readonly rateLimitedRoutes?: readonly RateLimitedRoute[];
  /** The outbound callbacks the domain sends (through `recordCallback`): timeout and retry policy per kind. */
  readonly callbackKinds?: readonly CallbackKind[];
  /** Deliveries the domain keeps in tables of its own (webhook deliveries), sent by the one delivery engine. */
  deliveryChannels?(services: Services): readonly DeliveryChannel[];
  /** Prometheus gauges of the domain's data, read from the database at scrape time. */
  gauges?(services: Services): readonly DatabaseGauge[];
  /** How long each kind of the domain's data is kept, and how a prune removes it (README, Data lifecycle). */
  readonly retention?: readonly RetentionRule[];
}
