/** An event as a domain records it, before the outbox gives it an id (`recordEvent`, or SQL: `eventWrites`). */
export interface NewEvent {
  streamType: string;
  streamId: string;
  msn: string;
  /** The public event name (registered by the domain in its EventTypeDefinition). */
  name: string;
  payload: Record<string, unknown>;
  occurredAt: Date;
}
