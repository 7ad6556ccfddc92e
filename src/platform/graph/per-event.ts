/**
 * Values made once per event and key, found by every subscriber of that event by the event's id, and kept as long as
 * one of them holds the value: the entry holds it weakly and is forgotten once it was collected. So a subscriber that
 * goes away leaves nothing here, and a stream that makes a new object of the event for each subscriber still shares.
 */
export class PerEvent<T extends object> {
  private readonly byEvent = new Map<number, Map<string, WeakRef<T>>>();
  private readonly collected = new FinalizationRegistry<{ eventId: number; key: string }>(({ eventId, key }) => this.forget(eventId, key));

  /** The value for the event and key, made by `make` unless one made before is still held. */
  get(eventId: number, key: string, make: () => T): T {
    let byKey = this.byEvent.get(eventId);
    if (!byKey) this.byEvent.set(eventId, (byKey = new Map()));
    const found = byKey.get(key)?.deref();
    if (found) return found;
    const made = make();
    byKey.set(key, new WeakRef(made));
    this.collected.register(made, { eventId, key });
    return made;
  }

  private forget(eventId: number, key: string): void {
    const byKey = this.byEvent.get(eventId);
    // Made again since: the entry is the new value's.
    if (!byKey || byKey.get(key)?.deref() !== undefined) return;
    byKey.delete(key);
    if (byKey.size === 0) this.byEvent.delete(eventId);
  }
}
