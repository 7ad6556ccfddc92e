import { logError } from '../../log.js';

export interface Job {
  name: string;
  run(): Promise<unknown>;
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
    this.running = this.runAll().finally(() => {
      this.running = undefined;
      if (this.wakeRequested && this.timer) {
        this.wakeRequested = false;
        this.launch();
      }
    });
  }

  /** Runs every job once after any run in progress, whether or not the scheduler was started (the test clock). */
  async runOnce(): Promise<void> {
    await this.running;
    await this.runAll();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async runAll(): Promise<void> {
    for (const job of this.jobs) {
      try {
        await job.run();
      } catch (error) {
        logError(`job ${job.name} failed`, error);
      }
    }
  }
}
