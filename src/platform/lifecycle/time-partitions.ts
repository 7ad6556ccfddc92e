import type { Em } from '../db/orm.js';

/**
 * A table partitioned by day of a time column (`<parent>_pYYYYMMDD`, UTC days, no default partition), kept by two
 * steps that never take an ACCESS EXCLUSIVE lock on the parent:
 * - ahead: each missing day up to `ahead` days after today is created as a table of its own and then attached
 *   (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent; CREATE TABLE … PARTITION OF would take ACCESS EXCLUSIVE);
 * - behind: each day that ended before the cutoff is detached CONCURRENTLY (outside any transaction: SHARE UPDATE
 *   EXCLUSIVE, then it waits for the transactions that may still see the day) and dropped, now a table of its own
 *   that nothing references. A detach an earlier prune left pending (its process stopped) is finished first.
 * Several instances may run both at once: a day another instance created, attached or detached meanwhile is skipped.
 */
export interface TimePartitions {
  parent: string;
}

export interface PartitionDay {
  name: string;
  /** The day's first instant (UTC midnight). */
  from: Date;
  /** The next day's first instant: rows of the day are before it. */
  to: Date;
  /** A detach of it was started and not finished. */
  detachPending: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const NAME = /_p(\d{4})(\d{2})(\d{2})$/;

function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function partitionName(parent: string, day: Date): string {
  return `${parent}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The parent's partitions, oldest first, as the catalog lists them. */
export async function partitionDays(em: Em, table: TimePartitions): Promise<PartitionDay[]> {
  const rows = await em.execute<{ name: string; detach_pending: boolean }[]>(
    `select c.relname as name, i.inhdetachpending as detach_pending from pg_inherits i
     join pg_class c on c.oid = i.inhrelid where i.inhparent = ?::regclass order by c.relname`,
    [table.parent],
  );
  return rows.flatMap((row) => {
    const match = NAME.exec(row.name);
    if (!match) return [];
    const from = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    return [{ name: row.name, from, to: new Date(from.getTime() + DAY_MS), detachPending: Boolean(row.detach_pending) }];
  });
}

/** Days attached that start after today: what the creator keeps ahead (the gauge alerts below two). */
export async function daysAhead(em: Em, table: TimePartitions, now: Date): Promise<number> {
  const tomorrow = dayStart(now).getTime() + DAY_MS;
  return (await partitionDays(em, table)).filter((d) => !d.detachPending && d.from.getTime() >= tomorrow).length;
}

/** Creates and attaches each missing day from yesterday to `ahead` days after today; returns the days added. */
export async function createDaysAhead(em: Em, table: TimePartitions, now: Date, ahead: number): Promise<string[]> {
  const existing = new Set((await partitionDays(em, table)).map((d) => d.name));
  const added: string[] = [];
  const today = dayStart(now).getTime();
  for (let offset = -1; offset <= ahead; offset++) {
    const from = new Date(today + offset * DAY_MS);
    const name = partitionName(table.parent, from);
    if (existing.has(name)) continue;
    const to = new Date(from.getTime() + DAY_MS);
    for (let attempt = 1; ; attempt++) {
      try {
        await em.execute(`create table if not exists ${name} (like ${table.parent} including defaults including constraints)`);
        await em.execute(
          `alter table ${table.parent} attach partition ${name} for values from ('${from.toISOString()}') to ('${to.toISOString()}')`,
        );
        added.push(name);
        break;
      } catch (error) {
        // Another instance created or attached the day meanwhile: once it is attached, that is all this step wants.
        if ((await partitionDays(em, table)).some((d) => d.name === name)) break;
        // Two creates of one day at once (instances entering a day together): the loser's fails on the catalog's
        // unique name, with the winner's table committed but maybe not yet attached. Tried again, the create finds the
        // table and the attach attaches it, or finds it attached.
        if (attempt >= 2) throw error;
      }
    }
  }
  return added;
}

/** The days that ended before `cutoff`, which a prune drops. */
export async function daysBefore(em: Em, table: TimePartitions, cutoff: Date): Promise<PartitionDay[]> {
  return (await partitionDays(em, table)).filter((d) => d.to.getTime() <= cutoff.getTime());
}

/** Rows of the days a prune at `cutoff` would drop (read, not estimated). */
export async function rowsBefore(em: Em, table: TimePartitions, cutoff: Date): Promise<number> {
  let rows = 0;
  for (const day of await daysBefore(em, table, cutoff)) rows += await countRows(em, day.name);
  return rows;
}

async function detachedDaysBefore(em: Em, table: TimePartitions, cutoff: Date): Promise<string[]> {
  const rows = await em.execute<{ name: string }[]>(
    `select c.relname as name from pg_class c where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace
       and c.relname like ? and not exists (select 1 from pg_inherits i where i.inhrelid = c.oid)`,
    [`${table.parent}\\_p%`],
  );
  return rows
    .map((row) => row.name)
    .filter((name) => {
      const match = NAME.exec(name);
      if (!match || !name.startsWith(`${table.parent}_p`)) return false;
      return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) + DAY_MS <= cutoff.getTime();
    });
}

async function countRows(em: Em, name: string): Promise<number> {
  const [row] = await em.execute<{ rows: string | number }[]>(`select count(*) as rows from ${name}`);
  return Number(row?.rows ?? 0);
}

/**
 * Detaches (CONCURRENTLY) and drops each day that ended before `cutoff`; returns the rows they held. `em` must not be
 * in a transaction: DETACH … CONCURRENTLY refuses to run in one.
 */
export async function dropDaysBefore(em: Em, table: TimePartitions, cutoff: Date): Promise<number> {
  let removed = 0;
  // A day detached by a prune that stopped before its drop: a table of its own now, no partition of the parent.
  for (const name of await detachedDaysBefore(em, table, cutoff)) {
    removed += await countRows(em, name);
    await em.execute(`drop table if exists ${name}`);
  }
  for (const day of await daysBefore(em, table, cutoff)) {
    if (!(await detached(em, table, day))) continue;
    removed += await countRows(em, day.name);
    await em.execute(`drop table if exists ${day.name}`);
  }
  return removed;
}

/**
 * Detaches `day`; false if it is no longer this prune's to drop. A DETACH … CONCURRENTLY that failed after its first
 * step (a concurrent change to the parent, such as the creation of the days ahead when the clock entered a new day)
 * leaves the day pending: it is finalized at once, so the prune removes what it counted, instead of the next one.
 */
async function detached(em: Em, table: TimePartitions, day: { name: string; detachPending: boolean }): Promise<boolean> {
  try {
    await em.execute(`alter table ${table.parent} detach partition ${day.name} ${day.detachPending ? 'finalize' : 'concurrently'}`);
    return true;
  } catch (error) {
    const now = (await partitionDays(em, table)).find((d) => d.name === day.name);
    if (now && !now.detachPending) throw error;
    if (!now || day.detachPending) return false;
  }
  try {
    await em.execute(`alter table ${table.parent} detach partition ${day.name} finalize`);
    return true;
  } catch {
    // Another instance is finishing it, or did: the day is no longer this prune's to drop.
    return false;
  }
}
