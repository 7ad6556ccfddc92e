import http from 'node:http';
import https from 'node:https';
import { connect } from 'node:net';
import { backoffDelayMs } from '../../platform/delivery/backoff.js';
import { webhookRequestHeaders } from '../../platform/delivery/webhook-signature.js';

/** An event as listen reads it from the graph: its id, name, reference, and the body a webhook of it carries. */
export interface ListenedEvent {
  eventId: string;
  name: string;
  reference: string | null;
  /** Null for an event no webhook can subscribe to: skipped. */
  webhookBody: string | null;
}

/** Where listen writes: a line per delivery attempt, and what it says of itself. */
export interface ListenOutput {
  delivery(line: string): void;
  status(line: string): void;
}

/** How long listen waits between attempts: doubling from the first delay up to the longest. */
export interface RetryDelays {
  firstMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY_DELAYS: RetryDelays = { firstMs: 500, maxMs: 10_000 };

/** How long one POST to the receiver may take, whole, before it counts as a failed attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** The command was stopped (Ctrl-C): nothing more is sent, and nothing is acknowledged that was not answered. */
export class ListenStopped extends Error {
  constructor() {
    super('stopped');
  }
}

/**
 * POSTs events to the receiver one at a time, each signed with listen's secret exactly as a webhook delivery is
 * (webhookRequestHeaders, the dispatcher's own), and returns only once the receiver answered 2xx: a non-2xx answer or
 * no answer is retried with backoff, for as long as it takes, and holds back every later event.
 */
export class Forwarder {
  constructor(
    private readonly target: URL,
    private readonly secret: string,
    private readonly output: ListenOutput,
    private readonly stop: AbortSignal,
    private readonly delays: RetryDelays = DEFAULT_RETRY_DELAYS,
  ) {}

  /** Delivers `event` until the receiver acknowledges it (2xx). Throws ListenStopped when stopped first. */
  async deliver(event: ListenedEvent & { webhookBody: string }): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.stop.aborted) throw new ListenStopped();
      const started = performance.now();
      const outcome = await this.post(event);
      if (this.stop.aborted) throw new ListenStopped();
      const ms = Math.round(performance.now() - started);
      const answered = 'status' in outcome ? String(outcome.status) : outcome.error;
      const acknowledged = 'status' in outcome && outcome.status >= 200 && outcome.status < 300;
      const delay = acknowledged ? 0 : backoffDelayMs(attempt, this.delays.firstMs, this.delays.maxMs);
      const retry = acknowledged ? '' : `  (attempt ${attempt}, retrying in ${formatDelay(delay)})`;
      this.output.delivery(
        `${new Date().toISOString()}  ${event.eventId.padStart(6)}  ${event.name}  ${event.reference ?? '-'}  ${answered}  ${ms} ms${retry}`,
      );
      if (acknowledged) return;
      await pause(delay, this.stop);
    }
  }

  /**
   * Waits until something accepts connections at the receiver's address, saying once that it is down: a receiver
   * started after listen gets every event from the cursor on, none lost and none skipped.
   */
  async waitForReceiver(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const problem = await this.probe();
      if (problem === undefined) {
        if (attempt > 1) this.output.status(`the receiver at ${this.target.href} answers: forwarding`);
        return;
      }
      if (attempt === 1) this.output.status(`the receiver at ${this.target.href} is down (${problem}): waiting for it`);
      await pause(backoffDelayMs(attempt, this.delays.firstMs, this.delays.maxMs), this.stop);
    }
  }

  /** A TCP connection to the receiver's address, closed at once: no request reaches its code. */
  private probe(): Promise<string | undefined> {
    const port = Number(this.target.port || (this.target.protocol === 'https:' ? 443 : 80));
    return new Promise((resolve) => {
      const socket = connect({ host: this.target.hostname.replace(/^\[|\]$/g, ''), port, timeout: ATTEMPT_TIMEOUT_MS });
      socket.once('connect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve('no answer');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  }

  private post(event: ListenedEvent & { webhookBody: string }): Promise<{ status: number } | { error: string }> {
    const body = event.webhookBody;
    const headers = {
      ...webhookRequestHeaders(this.target, event.eventId, body, this.secret, new Date()),
      'content-length': String(Buffer.byteLength(body)),
    };
    const client = this.target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const request = client.request(
        this.target,
        { method: 'POST', headers, signal: AbortSignal.any([this.stop, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]) },
        (response) => {
          response.on('error', () => undefined);
          response.resume();
          resolve({ status: response.statusCode ?? 0 });
        },
      );
      request.once('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.name === 'AbortError' || error.name === 'TimeoutError' ? 'timed out' : (error.code ?? error.message) }),
      );
      request.end(body);
    });
  }
}

/** Waits `ms`, or less when stopped (then throws ListenStopped). */
export function pause(ms: number, stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.reject(new ListenStopped());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ListenStopped());
    };
    stop.addEventListener('abort', onAbort, { once: true });
  });
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
