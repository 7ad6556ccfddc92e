import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus } from '../platform/delivery/delivery-status.js';

/** A merchant's registration: where to POST which events of one sales unit, signed with `secret`. */
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhook',
  properties: {
    id: p.uuid().primary(),
    msn: p.string(),
    url: p.string(),
    /** Public event names, e.g. `epayments.payment.captured.v1`. */
    events: p.json<string[]>(),
    /** The HMAC key, as handed out at registration; needed in clear to sign every delivery. */
    secret: p.string(),
    createdAt: p.datetime(),
  },
});
export type Webhook = InferEntity<typeof Webhook>;

/** Where a delivery to a registration stands (its rows live in the platform's generic `delivery` table). */
export type WebhookDeliveryStatus = DeliveryStatus;
