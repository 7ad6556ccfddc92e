import type { Clock } from './clock.js';
import type { Config } from '../config.js';
import type { Em, Orm } from './db/orm.js';
import type { PaymentEventBus } from './events/payment-event-bus.js';
import type { LoaderRegistry } from './graph/loader-registry.js';
import type { NodeRegistry } from './graph/node-registry.js';
import type { SalesUnitDirectory } from '../merchants/sales-unit.directory.js';

/** Process-wide collaborators, built once by the app. */
export interface Services {
  config: Config;
  orm: Orm;
  clock: Clock;
  salesUnits: SalesUnitDirectory;
  /** Committed payment events of every instance, for live subscribers in this process. */
  paymentEvents: PaymentEventBus;
  /** `node(id:)`'s finders, registered by the modules. */
  nodes: NodeRegistry<RequestContext>;
}

/** A merchant's API client, acting for one of its sales units. */
export interface MerchantPrincipal {
  kind: 'merchant';
  clientId: string;
  merchantId: string;
  /** When the access token that proved this identity expires (seconds since the epoch); absent when issuing one. */
  tokenExpiresAt?: number;
}

/** What every domain service takes first: who is calling, for which sales unit, and with what. */
export interface RequestContext {
  principal: MerchantPrincipal;
  /** The sales unit the request acts for, already checked to belong to the principal. */
  msn: string;
  em: Em;
  clock: Clock;
  config: Config;
  traceId: string;
  loaders: LoaderRegistry;
}
