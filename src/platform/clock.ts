/** Time source for every rule that depends on "now", so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A clock that can be moved forward (the test environment's test clock, tests' ManualClock). */
export interface AdvanceableClock extends Clock {
  advance(ms: number): void;
}

export function isAdvanceable(clock: Clock): clock is AdvanceableClock {
  return typeof (clock as Partial<AdvanceableClock>).advance === 'function';
}

/** The test environment's clock: the system time plus however far the test clock was advanced (never back). */
export class OffsetClock implements AdvanceableClock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    if (ms > 0) this.offsetMs += ms;
  }
}
