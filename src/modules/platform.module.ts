import { platformEventResolvers } from '../../resolvers/platform-events.js';
import { nodeResolvers } from '../../resolvers/platform-node.js';
import { DateTime, MinorUnits } from '../../resolvers/platform-scalars.js';
import { serviceResolvers } from '../../resolvers/platform-service.js';
import { ApiClient } from '../platform/auth/api-client.entity.js';
import { accessTokenRoutes } from '../platform/auth/access-token.routes.js';
import { Migration20261122000001Foundation } from '../platform/db/migrations/Migration20261122000001Foundation.js';
import { Migration20261122000002Webhooks } from '../platform/db/migrations/Migration20261122000002Webhooks.js';
import { Migration20261122000003PaymentEventNotify } from '../platform/db/migrations/Migration20261122000003PaymentEventNotify.js';
import { Migration20261123000004WebhookAttemptAtClaim } from '../platform/db/migrations/Migration20261123000004WebhookAttemptAtClaim.js';
import { Migration20261123000005DomainEventStream } from '../platform/db/migrations/Migration20261123000005DomainEventStream.js';
import { Migration20261123000006OutboundCallbacks } from '../platform/db/migrations/Migration20261123000006OutboundCallbacks.js';
import { Delivery, DeliveryAttempt } from '../platform/delivery/delivery.entity.js';
import { DomainEvent } from '../platform/events/domain-event.entity.js';
import { Migration20261126100200TraceParent } from '../platform/db/migrations/Migration20261126100200TraceParent.js';
import { Migration20261126170000DeliveryByReceiver } from '../platform/db/migrations/Migration20261126170000DeliveryByReceiver.js';
import { Migration20261126170100EventsOffCommitPath } from '../platform/db/migrations/Migration20261126170100EventsOffCommitPath.js';
import { Migration20261126180000Deliveries } from '../platform/db/migrations/Migration20261126180000Deliveries.js';
import { Migration20261126200000RateLimitTable } from '../platform/db/migrations/Migration20261126200000RateLimitTable.js';
import { Migration20261127030000DeliveryLeases } from '../platform/db/migrations/Migration20261127030000DeliveryLeases.js';
import { Migration20261204230000EventPositions } from '../platform/db/migrations/Migration20261204230000EventPositions.js';
import { Migration20261204230001UndeliveredWebhooks } from '../platform/db/migrations/Migration20261204230001UndeliveredWebhooks.js';
import { Migration20261205030000WalletClient } from '../platform/db/migrations/Migration20261205030000WalletClient.js';
import { Migration20261123000007Principals } from '../platform/db/migrations/Migration20261123000007Principals.js';
import { Migration20261126000008IdempotencyTarget } from '../platform/db/migrations/Migration20261126000008IdempotencyTarget.js';
import { Migration20261126000008TestClocks } from '../platform/db/migrations/Migration20261126000008TestClocks.js';
import { Migration20261205040000DataLifecycle } from '../platform/db/migrations/Migration20261205040000DataLifecycle.js';
import { Migration20261205060000AttemptLogContract } from '../platform/db/migrations/Migration20261205060000AttemptLogContract.js';
import { Migration20261205060200EventPositionBackfill } from '../platform/db/migrations/Migration20261205060200EventPositionBackfill.js';
import { Migration20261205070000ClaimIndexes } from '../platform/db/migrations/Migration20261205070000ClaimIndexes.js';
import { Migration20261205080000ReadIndexes } from '../platform/db/migrations/Migration20261205080000ReadIndexes.js';
import { Migration20261206000000PreviousReleaseShapes } from '../platform/db/migrations/Migration20261206000000PreviousReleaseShapes.js';
import { Migration20261205050000TrustedDocuments } from '../platform/db/migrations/Migration20261205050000TrustedDocuments.js';
import { TrustedDocument } from '../platform/graph/trusted-document.entity.js';
import { deliveryRetention } from '../platform/delivery/delivery-retention.js';
import { idempotencyRetention } from '../platform/idempotency/idempotency-retention.js';
import { partitionsAheadGauge } from '../platform/lifecycle/prune.job.js';
import { IdempotencyRecord } from '../platform/idempotency/idempotency-record.entity.js';
import type { DomainModule } from '../platform/module.js';
import '../platform/errors/platform.errors.js';

/**
 * What every domain stands on: API clients and access tokens, idempotency records, the outbox every domain's events
 * go to, outbound deliveries of every kind (webhooks, callbacks) and their attempts, the graph's scalars, `node(id:)` and the events of every stream. The first migrations predate modules and create the tables of several domains at once; a domain's
 * later migrations live in its own folder.
 */
export const platformModule: DomainModule = {
  name: 'platform',
  entities: [ApiClient, IdempotencyRecord, DomainEvent, Delivery, DeliveryAttempt, TrustedDocument],
  migrations: [
    { name: 'Migration20261122000001Foundation', class: Migration20261122000001Foundation },
    { name: 'Migration20261122000002Webhooks', class: Migration20261122000002Webhooks },
    { name: 'Migration20261122000003PaymentEventNotify', class: Migration20261122000003PaymentEventNotify },
    { name: 'Migration20261123000004WebhookAttemptAtClaim', class: Migration20261123000004WebhookAttemptAtClaim },
    { name: 'Migration20261123000005DomainEventStream', class: Migration20261123000005DomainEventStream },
    { name: 'Migration20261123000006OutboundCallbacks', class: Migration20261123000006OutboundCallbacks },
    { name: 'Migration20261123000007Principals', class: Migration20261123000007Principals },
    { name: 'Migration20261126000008IdempotencyTarget', class: Migration20261126000008IdempotencyTarget },
    { name: 'Migration20261126000008TestClocks', class: Migration20261126000008TestClocks },
    { name: 'Migration20261126100200TraceParent', class: Migration20261126100200TraceParent },
    { name: 'Migration20261126170000DeliveryByReceiver', class: Migration20261126170000DeliveryByReceiver },
    { name: 'Migration20261126170100EventsOffCommitPath', class: Migration20261126170100EventsOffCommitPath },
    { name: 'Migration20261126180000Deliveries', class: Migration20261126180000Deliveries },
    { name: 'Migration20261126200000RateLimitTable', class: Migration20261126200000RateLimitTable },
    { name: 'Migration20261127030000DeliveryLeases', class: Migration20261127030000DeliveryLeases },
    { name: 'Migration20261204230000EventPositions', class: Migration20261204230000EventPositions },
    { name: 'Migration20261204230001UndeliveredWebhooks', class: Migration20261204230001UndeliveredWebhooks },
    { name: 'Migration20261205030000WalletClient', class: Migration20261205030000WalletClient },
    { name: 'Migration20261205040000DataLifecycle', class: Migration20261205040000DataLifecycle },
    { name: 'Migration20261205060000AttemptLogContract', class: Migration20261205060000AttemptLogContract },
    { name: 'Migration20261205060200EventPositionBackfill', class: Migration20261205060200EventPositionBackfill },
    { name: 'Migration20261205050000TrustedDocuments', class: Migration20261205050000TrustedDocuments },
    { name: 'Migration20261205070000ClaimIndexes', class: Migration20261205070000ClaimIndexes },
    { name: 'Migration20261205080000ReadIndexes', class: Migration20261205080000ReadIndexes },
    { name: 'Migration20261206000000PreviousReleaseShapes', class: Migration20261206000000PreviousReleaseShapes },
  ],
  retention: [...deliveryRetention, idempotencyRetention],
  gauges: (services) => [partitionsAheadGauge(services)],
  routes: (services) => accessTokenRoutes(services),
  resolvers: [{ DateTime, MinorUnits }, nodeResolvers, serviceResolvers, platformEventResolvers],
};
