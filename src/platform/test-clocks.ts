import type { Clock } from './clock.js';
import type { Em } from './db/orm.js';

/**
 * Each sales unit's time. In production, and for every unit whose test clock never moved, that is the service's
 * clock; in the test environment a unit's test clock is the service's clock plus how far that unit's clock was
 * advanced (kept in `test_clock`, so every instance and a restart agree). Access tokens, deliveries and other
 * tenants' units never read it.
 */
export class TestClocks {
  /** A copy of `test_clock`, read at start and before every run of the jobs, so a request asks no database for its time. */
  private offsets = new Map<string, number>();

  constructor(private readonly base: Clock) {}

  /** The clock of the sales unit: what its requests, pages and jobs take as "now". */
  of(msn: string): Clock {
    return { now: () => new Date(this.base.now().getTime() + (this.offsets.get(msn) ?? 0)) };
  }

  /**
   * Re-reads every unit's offset (another instance may have advanced one). An offset only grows: a read that began
   * before another unit's advance on this instance wrote its new offset must not put the old one back.
   */
  async load(em: Em): Promise<void> {
    const rows = await em.execute<{ msn: string; offset_ms: string | number }[]>(`select msn, offset_ms from test_clock`);
    const offsets = new Map(rows.map((row) => [row.msn, Number(row.offset_ms)]));
    for (const [msn, offset] of this.offsets) if (offset > (offsets.get(msn) ?? 0)) offsets.set(msn, offset);
    this.offsets = offsets;
  }

  /** Moves the unit's clock forward by `ms` (added in the database, so two instances advancing at once both count). */
  async advance(em: Em, msn: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    const [row] = await em.execute<{ offset_ms: string | number }[]>(
      `insert into test_clock (msn, offset_ms) values (?, ?)
       on conflict (msn) do update set offset_ms = test_clock.offset_ms + excluded.offset_ms
       returning offset_ms`,
      [msn, ms],
    );
    this.offsets.set(msn, Number(row!.offset_ms));
  }

  /**
   * The timelines a job runs by: each unit with a moved clock on its own, then all other units together on the
   * service's clock. In production there is only the last one, and it excludes nothing.
   */
  timelines(): Timeline[] {
    const moved = [...this.offsets.entries()].filter(([, offset]) => offset > 0).map(([msn]) => msn);
    return [...moved.map((msn) => ({ now: this.of(msn).now(), msn })), { now: this.base.now(), exceptMsns: moved }];
  }
}

/** One job run's "now", for one sales unit (`msn`) or for every unit but those with their own clock (`exceptMsns`). */
export type Timeline = { now: Date; msn: string; exceptMsns?: undefined } | { now: Date; msn?: undefined; exceptMsns: string[] };

/** The timeline's units as a filter of a sales-unit-owned entity. */
export function timelineFilter(timeline: Timeline): { msn?: string | { $nin: string[] } } {
  if (timeline.msn !== undefined) return { msn: timeline.msn };
  return timeline.exceptMsns.length > 0 ? { msn: { $nin: timeline.exceptMsns } } : {};
}

/** The timeline's units as a SQL condition on `column` and its parameters. */
export function timelineSql(timeline: Timeline, column: string): { sql: string; params: string[] } {
  if (timeline.msn !== undefined) return { sql: `${column} = ?`, params: [timeline.msn] };
  if (timeline.exceptMsns.length === 0) return { sql: 'true', params: [] };
  return { sql: `${column} not in (${timeline.exceptMsns.map(() => '?').join(', ')})`, params: timeline.exceptMsns };
}
