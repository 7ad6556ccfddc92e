import { Migration20261122000001Foundation } from './Migration20261122000001Foundation.js';
import { Migration20261122000002Webhooks } from './Migration20261122000002Webhooks.js';
import { Migration20261122000003PaymentEventNotify } from './Migration20261122000003PaymentEventNotify.js';
import { Migration20261123000004WebhookAttemptAtClaim } from './Migration20261123000004WebhookAttemptAtClaim.js';
import { Migration20261123000005DomainEventStream } from './Migration20261123000005DomainEventStream.js';
import { Migration20261123000006OutboundCallbacks } from './Migration20261123000006OutboundCallbacks.js';

/** Every migration, in order. Committed, and run at start on PGlite and PostgreSQL alike. */
export const migrationsList = [
  { name: 'Migration20261122000001Foundation', class: Migration20261122000001Foundation },
  { name: 'Migration20261122000002Webhooks', class: Migration20261122000002Webhooks },
  { name: 'Migration20261122000003PaymentEventNotify', class: Migration20261122000003PaymentEventNotify },
  { name: 'Migration20261123000004WebhookAttemptAtClaim', class: Migration20261123000004WebhookAttemptAtClaim },
  { name: 'Migration20261123000005DomainEventStream', class: Migration20261123000005DomainEventStream },
  { name: 'Migration20261123000006OutboundCallbacks', class: Migration20261123000006OutboundCallbacks },
];
