import type { IExecutableSchemaDefinition } from '@graphql-tools/schema';
import type { RequestContext, Services } from './context.js';
import type { Em } from './db/orm.js';
import type { EntityDefinition, MigrationEntry } from './db/schema-parts.js';
import type { NodeFinder } from './graph/node-registry.js';
import type { Job } from './jobs/scheduler.js';
import type { Route } from './rest/http-types.js';

type ResolverMaps = NonNullable<IExecutableSchemaDefinition['resolvers']>;
export type ResolverMap = Exclude<ResolverMaps, readonly unknown[]>;

/**
 * What a domain brings to the service. The app loops over the list in `src/modules.ts`, so a new domain adds its
 * folder and one line there: nothing else in the platform names it. Error codes register themselves when the
 * domain's `<domain>.errors.ts` is imported by its module; DataLoaders are declared beside the data they load
 * (`defineLoader`); the SDL is the domain's file in `schema/`.
 */
export interface DomainModule {
  readonly name: string;
  readonly entities?: readonly EntityDefinition[];
  readonly migrations?: readonly MigrationEntry[];
  /** The REST routes of the domain's interface. */
  routes?(services: Services): Route[];
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
}
