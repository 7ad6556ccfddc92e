import DataLoader from 'dataloader';
import { idArrayParam } from '../db/id-array.js';
import { defineLoader } from '../graph/loader-registry.js';
import { eventTypes } from './event-types.js';

/**
 * What a webhook body of each event adds at delivery time (each stream's `deliveryReadSql`), read by the same SQL
 * expression the deliverer's claim uses, for the events of one request at once: so the graph's StreamEvent.webhookBody
 * is the body a delivery carries, personal data included, and the outbox still keeps none.
 */
export const deliveryReadByEventIdLoader = defineLoader(
  'deliveryReadByEventId',
  (em) =>
    new DataLoader<string, unknown>(async (ids) => {
      const rows = await em.execute<{ id: string; delivery_read: unknown }[]>(
        `select e.id::text as id, ${eventTypes.deliveryReadColumn()} from domain_event e where e.id = any(?::bigint[])`,
        // Event ids are digits only: anything else names no event.
        [idArrayParam(ids.filter((id) => /^\d+$/.test(id)))],
      );
      // As the deliverer reads it (webhook-delivery.channel.ts): jsonb arrives parsed on PostgreSQL, as text on PGlite.
      const read = (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value);
      const byId = new Map(rows.map((row) => [row.id, read(row.delivery_read)]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
);
