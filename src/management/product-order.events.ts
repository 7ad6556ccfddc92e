import type { RequestContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import type { EventTypeDefinition } from '../platform/events/event-types.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent, type OutboxEvent } from '../platform/events/outbox-event.js';
import { recordEvent, type NewEvent } from '../platform/events/record-event.js';
import { requirePartner } from './management-access.js';
import type { ProductOrder } from './product-order.entity.js';

/** The outbox stream of product orders; the stream id is the prefilled order id. */
export const PRODUCT_ORDER_STREAM = 'product-order';

/**
 * An order has no sales unit until it completes, and the outbox is keyed by one: `''` names none, as the signup
 * interface's idempotency keys do. The completed event carries the unit the order created.
 */
const NO_SALES_UNIT = '';

/**
 * Product order changes are read by the partner in the graph (`Partner.productOrderEvents`); the public
 * definitions name no webhook event for them (spec 3: "Events: not shown"), so none is offered to webhooks.
 */
export const productOrderEventTypes: EventTypeDefinition = {
  streamType: PRODUCT_ORDER_STREAM,
  webhookEventNames: [],
  webhookBody: () => {
    throw new Error('Product order events are not sent to webhooks');
  },
};

export type ProductOrderEventName = 'created' | 'submitted' | 'completed' | 'undone';

export function productOrderEventName(name: ProductOrderEventName): string {
  return `management.product-order.${name}.v1`;
}

/**
 * Records a change of the order, in the caller's unit of work, after the change was made to `order`: the event
 * carries the status it left the order in (none once undone).
 */
export function recordProductOrderEvent(em: Em, order: ProductOrder, name: ProductOrderEventName, now: Date): void {
  recordEvent(em, productOrderEvent(order, name, now));
}

/** The event of a change of the order, for the caller to record or the write runner to write. */
export function productOrderEvent(order: ProductOrder, name: ProductOrderEventName, now: Date): NewEvent {
  return {
    streamType: PRODUCT_ORDER_STREAM,
    streamId: order.id,
    msn: name === 'completed' && order.msn ? order.msn : NO_SALES_UNIT,
    name: productOrderEventName(name),
    payload: {
      prefilledOrderId: order.id,
      partnerId: order.partnerId,
      orgno: order.orgNumber,
      prefillStatus: order.status === 'DELETED' ? null : order.status,
      ...(order.msn ? { msn: order.msn } : {}),
    },
    occurredAt: now,
  };
}

/**
 * The events of the calling partner's product orders (undone ones included: the partner may see its undo), oldest
 * first, after the event id `afterId` (keyset). Tenancy is the order's: only events of orders the partner created.
 */
export async function listProductOrderEvents(ctx: RequestContext, limit: number, afterId: number | undefined): Promise<OutboxEvent[]> {
  const { partnerId } = requirePartner(ctx);
  const rows = await ctx.em.execute<Record<string, unknown>[]>(
    `select ${OUTBOX_EVENT_COLUMNS} from product_order po
     join domain_event e on e.stream_type = ? and e.stream_id = po.id::text
     where po.partner_id = ? ${afterId !== undefined ? 'and e.id > ?' : ''} order by e.id limit ?`,
    [PRODUCT_ORDER_STREAM, partnerId, ...(afterId !== undefined ? [afterId] : []), limit],
  );
  return rows.map(toOutboxEvent);
}
