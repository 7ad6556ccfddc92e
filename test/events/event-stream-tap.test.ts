import { forkEm } from '../../src/platform/db/orm.js';
import { eventStream, SubscriberTooSlowError, type EventTap } from '../../src/platform/events/event-stream.js';
import type { OutboxEvent } from '../../src/platform/events/outbox-event.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A tapped stream (how a graphql-ws subscriber with a socket takes its events, subscription-execution.ts) hands each
// event over as the bus publishes it, and its bound applies to the events its consumer still holds: a consumer that
// holds more than that fails as too slow, one that keeps up never does, however many events come at once.

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const referenceOf = (event: OutboxEvent) => (event.payload as { reference: string }).reference;

/** A stream of test sales unit 123456's payment events, as the bus publishes them. */
const paymentEvents = (maxBuffered?: number) =>
  eventStream(t.app.services.events, { filter: { msn: '123456', streamType: 'payment' }, map: (event) => event, maxBuffered });

/** `count` CREATED events committed at once, their references `prefix` + 1 … `prefix` + count. */
const commitEvents = (prefix: string, count: number) => commitCreatedEvents(forkEm(t.app.services.orm), prefix, count);

/** A consumer that holds what it was given until told to let it go. */
function holdingTap(): EventTap<OutboxEvent> & { taken: string[]; failure?: Error; letGo: () => void } {
  let held = 0;
  const tap = {
    taken: [] as string[],
    failure: undefined as Error | undefined,
    event: (event: OutboxEvent) => {
      held++;
      tap.taken.push(referenceOf(event));
    },
    failed: (error: Error) => void (tap.failure = error),
    held: () => held,
    letGo: () => void (held = 0),
  };
  return tap;
}

test('events that came before the tap are handed over first, then each as it is published, in order', async () => {
  const stream = paymentEvents();
  try {
    await commitEvents('before-tap-', 3);
    // The bus publishes them to the untapped stream, which buffers them.
    const first = await stream.next();
    expect(first.done === false && referenceOf(first.value)).toBe('before-tap-1');
    const tap = holdingTap();
    stream.tap(tap);
    expect(tap.taken).toEqual(['before-tap-2', 'before-tap-3']);
    await commitEvents('after-tap-', 2);
    await eventually(() => tap.taken.length === 4, 'the events after the tap');
    expect(tap.taken.slice(2)).toEqual(['after-tap-1', 'after-tap-2']);
  } finally {
    await stream.return?.();
  }
});

test('a consumer holding more events than the bound fails as too slow, and takes nothing after', async () => {
  const stream = paymentEvents(5);
  const tap = holdingTap();
  stream.tap(tap);
  try {
    await commitEvents('slow-', 8);
    await eventually(() => tap.failure !== undefined, 'the failure');
    expect(tap.failure).toBeInstanceOf(SubscriberTooSlowError);
    expect(tap.taken).toEqual(['slow-1', 'slow-2', 'slow-3', 'slow-4', 'slow-5']);
    tap.letGo();
    // A stream that failed has left the bus: a later event reaches a fresh stream, not this one.
    const fresh = paymentEvents();
    try {
      await commitEvents('later-', 1);
      const next = await fresh.next();
      expect(next.done === false && referenceOf(next.value)).toBe('later-1');
    } finally {
      await fresh.return?.();
    }
    expect(tap.taken).toHaveLength(5);
  } finally {
    await stream.return?.();
  }
});

test('a consumer that keeps up takes many more events than the bound, committed at once', async () => {
  const stream = paymentEvents(5);
  const tap = holdingTap();
  // It is done with each event as it takes it.
  stream.tap({ ...tap, event: (event) => void tap.taken.push(referenceOf(event)), held: () => 0 });
  try {
    await commitEvents('kept-up-', 600);
    await eventually(() => tap.taken.length === 600, 'every event');
    expect(tap.taken).toEqual(Array.from({ length: 600 }, (_, i) => `kept-up-${i + 1}`));
    expect(tap.failure).toBeUndefined();
  } finally {
    await stream.return?.();
  }
});
