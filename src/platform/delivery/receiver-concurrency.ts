/**
 * How many POSTs one receiver (a webhook registration, a callback URL) may have in flight: where a receiver starts,
 * and the bounds its answers move it between.
 */
export const RECEIVER_CONCURRENCY = {
  /** A receiver this instance has not heard from yet (or has not heard from since it was idle). */
  initial: 16,
  min: 1,
  /** A quarter of the instance's POSTs: four receivers at the bound still leave the rest room. */
  max: 64,
} as const;

/** An answer counts as slow when the recent latency is this many times the receiver's usual. */
const SLOW_FACTOR = 2;
/** ... and at least this much above it: a receiver answering in 2-6 ms is not slowing down at 12 ms. */
const SLOW_MARGIN_MS = 50;
/** A slow answer shrinks the limit less than a failure does: the receiver answers, only later. */
const SLOW_DECREASE = 0.75;
const FAILURE_DECREASE = 0.5;
/** Weights of the newest latency in the recent and the usual average. */
const RECENT_WEIGHT = 0.2;
const USUAL_WEIGHT = 0.02;
/** A receiver not heard from for this long is forgotten (it starts again at `initial`): callback URLs come and go. */
const IDLE_MS = 10 * 60_000;
/** How often (in answers) the idle receivers are swept out. */
const SWEEP_EVERY = 1_000;

/** One settled POST, as its receiver's limit learns from it. */
export interface ReceiverAnswer {
  /** When the POST started (performance.now()): a decrease reacts once to the POSTs that were in flight together. */
  startedAt: number;
  durationMs: number;
  /** A 2xx or 4xx answer: the receiver is keeping up. A 5xx, a 429, a timeout or no connection: it is not. */
  keepingUp: boolean;
  /** POSTs this instance had in flight to the receiver when this one settled, itself included. */
  inFlight: number;
}

interface ReceiverState {
  limit: number;
  recentMs: number | undefined;
  usualMs: number | undefined;
  /** The last decrease; answers to POSTs started before it do not decrease the limit again. */
  decreasedAt: number;
  /** Never decreased yet: the limit grows by one per answer (doubling per round) until the receiver first pushes back. */
  slowStart: boolean;
  lastAnswerAt: number;
}

/**
 * Each receiver's concurrency, learnt from its answers by additive increase, multiplicative decrease (AIMD, as TCP
 * sizes its window): while a receiver keeps up and this instance uses at least half its limit, each answer adds
 * 1/limit (one more POST per round of answers), or 1 until the receiver first pushed back (slow start, so a receiver
 * that answers in 150 ms is given the POSTs its events need within a few rounds, not a minute); a failure halves it, and latency that climbs well above the
 * receiver's usual takes a quarter off. One decrease per round: the POSTs already in flight when it happened answer
 * as they would have, and are not counted again. So a receiver answering in 150 ms is given the POSTs that keep pace
 * with its events, one that fails or slows down under load gets fewer, and none gets more than `max`: a slow
 * receiver holds slots of its own, never the instance's. Per instance: each instance learns from what it sends.
 */
export class ReceiverConcurrency {
  private readonly receivers = new Map<string, ReceiverState>();
  private answersSinceSweep = 0;

  /** The limits of receivers that moved from the initial one, for the claim; every other receiver has `initial`. */
  limits(): Record<string, number> {
    const moved: Record<string, number> = {};
    for (const [receiver, state] of this.receivers) {
      const limit = Math.floor(state.limit);
      if (limit !== RECEIVER_CONCURRENCY.initial) moved[receiver] = limit;
    }
    return moved;
  }

  answered(receiver: string, answer: ReceiverAnswer): void {
    const state = this.receivers.get(receiver) ?? {
      limit: RECEIVER_CONCURRENCY.initial,
      recentMs: undefined,
      usualMs: undefined,
      decreasedAt: -Infinity,
      slowStart: true,
      lastAnswerAt: 0,
    };
    this.receivers.set(receiver, state);
    state.lastAnswerAt = performance.now();
    if (++this.answersSinceSweep >= SWEEP_EVERY) this.sweep(state.lastAnswerAt);
    const decreasable = answer.startedAt >= state.decreasedAt;
    if (!answer.keepingUp) {
      if (decreasable) this.decrease(state, FAILURE_DECREASE);
      return;
    }
    const { durationMs } = answer;
    state.recentMs = state.recentMs === undefined ? durationMs : state.recentMs + RECENT_WEIGHT * (durationMs - state.recentMs);
    state.usualMs = state.usualMs === undefined ? durationMs : state.usualMs + USUAL_WEIGHT * (durationMs - state.usualMs);
    const slowing = state.recentMs > state.usualMs * SLOW_FACTOR && state.recentMs > state.usualMs + SLOW_MARGIN_MS;
    if (slowing) {
      if (decreasable) this.decrease(state, SLOW_DECREASE);
      return;
    }
    // Growing a limit the instance does not use would only let a burst through unchecked later.
    if (answer.inFlight * 2 < state.limit) return;
    state.limit = Math.min(RECEIVER_CONCURRENCY.max, state.limit + (state.slowStart ? 1 : 1 / state.limit));
  }

  private sweep(now: number): void {
    this.answersSinceSweep = 0;
    for (const [receiver, state] of this.receivers) if (now - state.lastAnswerAt > IDLE_MS) this.receivers.delete(receiver);
  }

  private decrease(state: ReceiverState, factor: number): void {
    state.limit = Math.max(RECEIVER_CONCURRENCY.min, state.limit * factor);
    state.decreasedAt = performance.now();
    state.slowStart = false;
  }
}
