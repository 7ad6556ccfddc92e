import type { Em } from '../db/orm.js';

/** Events one sequencing gives positions to at most; a backlog takes several. */
export const SEQUENCING_BATCH = 1_000;

/** The largest xid8: an upper bound of every transaction id. */
const MAX_XID8 = '18446744073709551615';
/** The sequencing's work is the instance's background work, not a request's: kept out of the per-request query log. */
const BACKGROUND = { enabled: false };

/** The sequencing statement (its rule is in `sequenceEvents`' comment); exported for the cost test's EXPLAIN. */
export const SEQUENCING_SQL = `with candidate as (
   select id, msn, row_number() over (order by id) as n from (
     select e.id, e.msn from (
       select id, msn from domain_event
       where xid >= (select horizon from event_sequencer where id = 1) and xid <= '${MAX_XID8}'::xid8
       offset 0
     ) e
     where not exists (select 1 from event_position p where p.event_id = e.id offset 0)
     order by e.id limit ${SEQUENCING_BATCH}
   ) unpositioned
 ), turn as (
   update event_sequencer set
     last_position = last_position + (select count(*) from candidate),
     horizon = case when (select count(*) from candidate) < ${SEQUENCING_BATCH}
       then greatest(horizon, pg_snapshot_xmin(pg_current_snapshot())) else horizon end
   where id = 1 and exists (select 1 from candidate)
   returning last_position - (select count(*) from candidate) as base
 )
 insert into event_position (event_id, position, msn)
 select candidate.id, turn.base + candidate.n, candidate.msn from candidate, turn
 on conflict (event_id) do nothing
 returning event_id`;

/**
 * Gives the committed events that have none a position, above every position given before: one statement, committed
 * on its own. Returns how many it positioned (SEQUENCING_BATCH means more may wait).
 *
 * Why positions follow commit order: an event gets one only once it committed (an uncommitted row is invisible
 * here), and sequencings queue on the one `event_sequencer` row. A sequencing waiting there continues, once the one
 * before committed, from the position that one reached (PostgreSQL re-reads a row it waited for), and skips the
 * events it had seen without a position that the other one positioned meanwhile (their `event_position` rows
 * conflict), which leaves holes, never a position twice. So a reader that sees a position sees every lower one, and reading "after
 * position P" never skips an event that commits later: it gets a higher position.
 *
 * Which events it looks at: those of transactions at or above the horizon the last sequencing left (each row keeps its
 * writer's transaction id, `xid`). A sequencing that positioned all it saw moves the horizon to the oldest
 * transaction running when its statement began: every older transaction had ended, so each of its events was seen
 * and positioned (now, or before). One that found nothing writes nothing: moving the horizon then would spend a
 * transaction id on every poll, and leave the next one behind again by that very id. Its cost therefore follows the fresh events, not the outbox, whatever the
 * table's statistics: the xid's upper bound, always true, makes the condition a range, which PostgreSQL takes for a
 * narrow one and reads through the xid index, and `offset 0` keeps that scan under the `order by id limit`. The
 * `offset 0` in `not exists` keeps it a probe of `event_position`'s key per candidate: as a join, analyzed statistics
 * of a large table made it a hash join that reads all of `event_position` whenever anything is fresh.
 *
 * Within a batch positions follow ids. A stream's writers serialize on its row lock and draw their ids while holding
 * it, and a commit is visible before its locks are released, so a stream's events get positions in their order.
 */
export async function sequenceEvents(em: Em): Promise<number> {
  const rows = await em.execute<unknown[]>(SEQUENCING_SQL, [], 'all', BACKGROUND);
  return rows.length;
}

/** Sequences until no committed event is left without a position (a sequencing that positioned none). */
export async function sequenceAll(em: Em): Promise<void> {
  while ((await sequenceEvents(em)) > 0);
}

/** Events one backfill step positions at most: one short statement and commit each. */
export const BACKFILL_BATCH = 10_000;

/**
 * One step of the backfill of events older than positions (Migration20261204230000EventPositions): the next batch
 * below where the walk stands, of transactions that ended before that migration, gets its id as its position; the
 * walk then stands at the lowest id of the batch, or at 0 (done) after a short one. One statement, committed on its
 * own; instances starting at once queue on the walk's row (read again once the one before committed), so they take
 * disjoint batches. Returns how many events it positioned.
 */
export async function backfillPositionsStep(em: Em, batchRows = BACKFILL_BATCH): Promise<number> {
  const [row] = await em.execute<{ positioned: string | number }[]>(
    `with walk as (select below, before_xid from event_position_backfill where id = 1 and below > 0 for update),
     batch as (
       select e.id, e.msn from domain_event e, walk
       where e.id < walk.below and (e.xid is null or e.xid < walk.before_xid)
       order by e.id desc limit ?
     ),
     positioned as (
       insert into event_position (event_id, position, msn) select id, id, msn from batch on conflict (event_id) do nothing returning 1
     ),
     moved as (
       update event_position_backfill set below = case when (select count(*) from batch) < ? then 0 else (select min(id) from batch) end
       where id = 1 and exists (select 1 from walk) returning 1
     )
     select count(*) as positioned from positioned`,
    [batchRows, batchRows],
    'all',
    BACKGROUND,
  );
  return Number(row?.positioned ?? 0);
}

/** Runs the backfill's steps until the walk is done; returns how many it ran (0: nothing was left). */
export async function backfillPositions(em: Em, batchRows = BACKFILL_BATCH): Promise<number> {
  let steps = 0;
  while (await backfillPending(em)) {
    await backfillPositionsStep(em, batchRows);
    steps += 1;
  }
  return steps;
}

async function backfillPending(em: Em): Promise<boolean> {
  const [row] = await em.execute<{ below: string | number }[]>(
    'select below from event_position_backfill where id = 1',
    [],
    'all',
    BACKGROUND,
  );
  return Number(row?.below ?? 0) > 0;
}
