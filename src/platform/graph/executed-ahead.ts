/**
 * An event's execution, started once and shared; `settled` is set when it resolved (`failure` when it rejected), so a
 * reader need not await it, and `waiting` are called then, in one turn, rather than a promise reaction each.
 */
export interface StartedExecution<T> {
  promise: Promise<T>;
  settled?: T;
  failure?: { error: unknown };
  waiting?: (() => void)[];
}

/**
 * One subscriber's events, taken from its source as they arrive, each one's execution started at once, while the
 * subscriber still writes earlier results. Without it a subscriber took the next event only after writing the last,
 * so an operation's executions ran one after another: one that reads the database waits a few turns of a busy event
 * loop, and at 20 to 60 events a second the executions fell behind by seconds (bench/README.md, fan-out across
 * instances). At most `limit` events run ahead of the writes; past that the events wait in the source, whose own
 * bound fails a subscriber that does not keep up, as before.
 */
export class ExecutedAhead<T> {
  private readonly started: StartedExecution<T>[] = [];
  private ended: { error?: unknown; failed: boolean } | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeTaker: (() => void) | undefined;

  constructor(
    private readonly source: AsyncIterator<unknown>,
    private readonly start: (event: unknown) => StartedExecution<T>,
    private readonly limit: number,
  ) {
    void this.take();
  }

  /** The next event's result, in the source's order, without waiting when it is already there and settled. */
  nextSettled(): T | undefined {
    const head = this.started[0];
    if (head?.settled === undefined) return undefined;
    this.shift();
    return head.settled;
  }

  /** The next event's result, in the source's order; undefined once the source ended; rejects with its failure. */
  async next(): Promise<T | undefined> {
    while (this.started.length === 0) {
      if (this.ended) {
        if (this.ended.failed) throw this.ended.error;
        return undefined;
      }
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
    const head = this.shift();
    return head.settled ?? (await head.promise);
  }

  /** Stops taking events (the subscription ended); a waiting `next` resolves to the end. */
  stop(): void {
    this.ended ??= { failed: false };
    this.wake();
  }

  private shift(): StartedExecution<T> {
    const head = this.started.shift()!;
    const taker = this.wakeTaker;
    this.wakeTaker = undefined;
    taker?.();
    return head;
  }

  private wake(): void {
    const reader = this.wakeReader;
    this.wakeReader = undefined;
    reader?.();
    const taker = this.wakeTaker;
    this.wakeTaker = undefined;
    taker?.();
  }

  private async take(): Promise<void> {
    try {
      while (!this.ended) {
        if (this.started.length >= this.limit) {
          await new Promise<void>((resolve) => (this.wakeTaker = resolve));
          continue;
        }
        const event = await this.source.next();
        if (event.done || this.ended) break;
        this.started.push(this.start(event.value));
        this.wake();
      }
      this.ended ??= { failed: false };
    } catch (error) {
      this.ended ??= { error, failed: true };
    }
    this.wake();
  }
}
