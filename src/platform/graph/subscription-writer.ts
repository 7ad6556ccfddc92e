import type { Socket } from 'node:net';
import type { ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import { logInfo } from '../../log.js';
import type { SharedResult } from './subscription-sharing.js';

/**
 * Where one subscription's results go, whatever carries them: a graphql-ws socket (`socketOutlet`), or an HTTP stream
 * (graphql-sse, multipart: http-subscriptions.ts). Each result is serialized once per event and operation
 * (`SharedResult.payload`), however many outlets write it.
 */
export interface SubscriptionOutlet {
  /** False once the client is gone, or was cut off as too far behind: the subscription ends. */
  readonly open: boolean;
  write(shared: SharedResult): void;
}

/** Text, never compressed: the message is serialized once and written as it is, and compression would queue it. */
const SEND_OPTIONS = { binary: false, compress: false } as const;

/**
 * What one socket's subscriptions send, through ws's own `send`, so every frame of the socket (ws's pongs and closes,
 * graphql-ws's messages, notifications) leaves in the order it was sent.
 *
 * A socket's writes of one turn of the event loop leave together: its TCP socket (the upgrade request's, Node's public
 * API) is corked at the turn's first write and uncorked when the turn ends, so a read that found a batch of events
 * costs one system call per socket, not one per event and subscription. The write to the kernel was the largest cost of
 * the fan-out profile (bench/README.md).
 *
 * Writes never wait for the socket: what a client has not read stays unsent on its socket, and that is all a socket
 * that stops reading can grow. Past `maxUnsentBytes` left from earlier turns, across all its subscriptions, the socket
 * is closed with a reason (1013, try again later: a graphql-ws client reconnects and resumes with `after:`) and its
 * subscriptions end, so it holds at most that much until its client answers the close or ws gives up on it.
 */
export class SocketWriter {
  private holding = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly tcp: Socket,
    private readonly maxUnsentBytes: number,
    private readonly counts: { notifications: number },
  ) {}

  /** False once the socket closes, or was closed as too far behind: its subscriptions end. */
  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Sends one message, held with the turn's others; nothing once the socket is no longer open, as graphql-ws sends. */
  send(message: Buffer): void {
    if (!this.open) return;
    if (!this.holding) {
      if (this.tooFarBehind()) return;
      this.holding = true;
      this.tcp.cork();
      if (holding.size === 0) setImmediate(releaseHeldWrites);
      holding.add(this);
    }
    this.counts.notifications++;
    this.socket.send(message, SEND_OPTIONS);
  }

  release(): void {
    this.holding = false;
    this.tcp.uncork();
  }

  /** Measured before the turn's first write, so a burst a fast client is still taking does not count against it. */
  private tooFarBehind(): boolean {
    const unsent = this.socket.bufferedAmount;
    if (unsent <= this.maxUnsentBytes) return false;
    logInfo('subscriber socket closed: it stopped reading', { unsentBytes: unsent, maxUnsentBytes: this.maxUnsentBytes });
    this.socket.close(TOO_FAR_BEHIND, `Too far behind: more than ${this.maxUnsentBytes} bytes unsent; reconnect and resume`);
    return true;
  }
}

/** RFC 6455's "try again later", on which graphql-ws clients reconnect. */
export const TOO_FAR_BEHIND = 1013;

/** Sockets holding this turn's writes, released together once it ends. */
const holding = new Set<SocketWriter>();

function releaseHeldWrites(): void {
  for (const writer of holding) writer.release();
  holding.clear();
}

/** A subscription on a socket: each result goes out as the `next` message graphql-ws would send. */
export function socketOutlet(
  writer: SocketWriter,
  id: string,
  format: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult,
): SubscriptionOutlet {
  // Byte for byte graphql-ws's message: only the id is this subscriber's own.
  const messageStart = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  return {
    get open() {
      return writer.open;
    },
    write: (shared) => {
      const payload = payloadOf(shared, format);
      const length = messageStart.length + payload.length + MESSAGE_END.length;
      writer.send(Buffer.concat([messageStart, payload, MESSAGE_END], length));
    },
  };
}

/** The result as the client sees it, in UTF-8 JSON: made by the first outlet that writes it, for every transport. */
export function payloadOf(shared: SharedResult, format: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult): Buffer {
  return (shared.payload ??= Buffer.from(JSON.stringify(format(shared.result))));
}

const MESSAGE_END = Buffer.from('}');
