import { scoped } from '../auth/tenancy.js';
import type { SalesUnitContext } from '../context.js';
import { AppError } from '../errors/app-error.js';
import type { Keyset } from '../paging/keyset.js';
import { sequenceEvents } from './event-sequencer.js';
import { toPositionedEvent, type PositionedEvent } from './outbox-event.js';
import { streamSql } from './stream-order.js';

type Row = Record<string, unknown>;

/** Which of the caller's events to list: every criterion given must hold. */
export interface EventLogFilter {
  names?: readonly string[] | null;
  streamType?: string | null;
  occurredFrom?: string | null;
  occurredBefore?: string | null;
}

/** The events connection's order: a cursor carries the event's position. */
export const positionKeyset: Keyset<{ position: number }, number> = {
  keyOf: (row) => [row.position],
  read: ([position, ...rest]) =>
    typeof position === 'number' && Number.isSafeInteger(position) && position >= 0 && rest.length === 0 ? position : undefined,
};

/**
 * The caller's sales unit's committed events of every stream (payments, QR check-ins, PSP, checkout, operator
 * actions): `limit` events newest first before a position, or oldest first after one. One statement per page.
 */
export async function readEventLog(
  ctx: SalesUnitContext,
  filter: EventLogFilter | null | undefined,
  page: { limit: number } & ({ newestFirst: true; beforePosition?: number } | { afterPosition: number }),
): Promise<PositionedEvent[]> {
  const from = filter?.occurredFrom ? new Date(filter.occurredFrom) : undefined;
  const before = filter?.occurredBefore ? new Date(filter.occurredBefore) : undefined;
  if (from && before && from >= before) throw AppError.validation([{ name: 'occurredBefore', reason: 'Later than occurredFrom' }]);
  const slice = { msn: scoped(ctx).msn, names: filter?.names, streamType: filter?.streamType, occurredFrom: from, occurredBefore: before };
  // A page shows what committed before it was asked for, as a history should, not only what the bus has sequenced
  // by then (a few milliseconds behind a commit): a client that wrote, then reads, sees its write.
  await sequenceEvents(ctx.em);
  const { sql, params } = streamSql(slice, page);
  return (await ctx.em.execute<Row[]>(sql, params)).map(toPositionedEvent);
}
