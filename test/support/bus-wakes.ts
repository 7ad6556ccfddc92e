import type { DomainEventBus } from '../../src/platform/events/domain-event-bus.js';

/**
 * Counts the times `bus` is told that this instance committed events, while `run` runs; the bus still reads as
 * before. `run` gets the count so far.
 */
export async function countingBusWakes(bus: DomainEventBus, run: (wakes: () => number) => Promise<void>): Promise<void> {
  let wakes = 0;
  const committedHere = bus.committedHere.bind(bus);
  bus.committedHere = () => {
    wakes++;
    committedHere();
  };
  try {
    await run(() => wakes);
  } finally {
    delete (bus as Partial<DomainEventBus>).committedHere;
  }
}
