import { logError } from '../../log.js';

export interface Job {
  name: string;
  run(): Promise<unknown>;
  /**
   * The earliest time from which this job has work among the sales unit's objects (an expiry, a ledger date to pay
   * out, a batch period), by the unit's time; null when it has none. A test clock's advance runs the jobs only where
   * one of them has work, not at every midnight on its way. A job that cannot tell leaves it out, and the advance
   * stops at every midnight for it.
   */
  nextDueFor?(msn: string): Promise<Date | null>;
}

/**
 * Runs each job every `intervalMs`, never overlapping itself. Jobs are idempotent and coordinate through row
 * locks, so every instance may run them.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A wake-up came during a run: run again as soon as it ends. */
  private wakeRequested = false;

  constructor(
    private readonly jobs: Job[],
    private readonly intervalMs: number,
    /** Told of every run (the job-run metrics). */
    private readonly onRun: (job: string, ok: boolean, seconds: number) => void = () => undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.launch();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Runs the jobs now rather than at the next tick, because there is new work; during a run, right after it. */
  wake(): void {
    if (!this.timer) return;
    if (this.running) this.wakeRequested = true;
    else this.launch();
  }

  private launch(): void {
    void this.exclusively();
  }

  /**
   * Runs every job once, after any run in progress and never beside another, whether or not the scheduler was
   * started (the test clock). No tick starts a run beside it: that run could be the one doing the work (a payout
   * under its ledger's lock), and the test clock must not answer before that work is done.
   */
  async runOnce(): Promise<void> {
    await this.exclusively();
  }

  /** The earliest `nextDueFor` of the jobs for the unit; null when none has work; undefined when a job cannot tell. */
  async nextDueFor(msn: string): Promise<Date | null | undefined> {
    let earliest: Date | null = null;
    for (const job of this.jobs) {
      if (!job.nextDueFor) return undefined;
      const due = await job.nextDueFor(msn);
      if (due && (!earliest || due.getTime() < earliest.getTime())) earliest = due;
    }
    return earliest;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    while (this.running) await this.running;
  }

  /** One run of every job, once no other run of this scheduler is in progress. */
  private async exclusively(): Promise<void> {
    while (this.running) await this.running;
    const run = this.runAll();
    this.running = run;
    try {
      await run;
    } finally {
      if (this.running === run) this.running = undefined;
      // A wake during this run (ticked or asked for) is new work it may have missed.
      if (this.wakeRequested && this.timer && !this.running) {
        this.wakeRequested = false;
        this.launch();
      }
    }
  }

  private async runAll(): Promise<void> {
    for (const job of this.jobs) {
      const started = performance.now();
      let ok = true;
      try {
        await job.run();
      } catch (error) {
        ok = false;
        logError(`job ${job.name} failed`, error);
      }
      this.onRun(job.name, ok, (performance.now() - started) / 1000);
    }
  }
}
