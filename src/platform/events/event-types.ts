import type { OutboxEvent } from './outbox-event.js';

/** What a domain tells the platform about the events it records. */
export interface EventTypeDefinition {
  /** The stream type its events carry, e.g. `payment`; one definition per stream type. */
  streamType: string;
  /** The public names a webhook registration may subscribe to (the outbox `name` of the matching events). */
  webhookEventNames: readonly string[];
  /**
   * The exact body a webhook delivery of one of its events POSTs (the public definition's shape). `read`: what
   * `deliveryRead` gave for the event when the delivery was claimed.
   */
  webhookBody(event: OutboxEvent, read?: unknown): string;
  /**
   * What a body adds at delivery time rather than keeping in the outbox (personal data, which the outbox must not
   * hold for ever): a SQL expression over the event's row `e` giving one jsonb value (or null), read in the claim's
   * statement. Absent: nothing.
   */
  deliveryReadSql?: string;
  /**
   * Older public names of its events (alias -> outbox name, e.g. `QrScannedEvent` -> `user.checked-in.v1`): a webhook
   * may subscribe by either name and gets the same events.
   */
  webhookEventAliases?: Readonly<Record<string, string>>;
}

/**
 * The event types of every domain, registered when the app is built: the webhooks API accepts exactly the names
 * registered here, the dispatcher fans out only those, and the deliverer renders each event with its domain's
 * body. Registering the same definition again (a second app in one process) changes nothing.
 */
export class EventTypeRegistry {
  private readonly byStreamType = new Map<string, EventTypeDefinition>();
  private readonly names = new Map<string, string>();

  register(definition: EventTypeDefinition): void {
    const existing = this.byStreamType.get(definition.streamType);
    if (existing === definition) return;
    if (existing) throw new Error(`Event types of stream ${definition.streamType} are registered twice`);
    for (const name of definition.webhookEventNames) {
      const owner = this.names.get(name);
      if (owner) throw new Error(`Webhook event ${name} is registered by streams ${owner} and ${definition.streamType}`);
    }
    this.byStreamType.set(definition.streamType, definition);
    for (const name of definition.webhookEventNames) this.names.set(name, definition.streamType);
    for (const [alias, name] of Object.entries(definition.webhookEventAliases ?? {})) {
      this.names.set(alias, definition.streamType);
      (this.aliases[name] ??= []).push(alias);
    }
  }

  private readonly aliases: Record<string, string[]> = {};

  /** Outbox name -> the aliases a webhook may have subscribed by instead (for the dispatcher's match). */
  webhookEventAliases(): Record<string, string[]> {
    return this.aliases;
  }

  /** Every name a webhook may be registered for, in registration order. */
  webhookEventNames(): string[] {
    return [...this.names.keys()];
  }

  isWebhookEventName(name: string): boolean {
    return this.names.has(name);
  }

  /**
   * The body a webhook delivery of `event` carries, or null when no webhook can subscribe to the event's name (a PSP
   * payment's, an operator action's): what the dispatcher would send, shown to the graph (StreamEvent.webhookBody).
   * `read`: the event's delivery read (`deliveryReadSql`), as the claim reads it; see `needsDeliveryRead`.
   */
  webhookBodyOf(event: OutboxEvent, read?: unknown): string | null {
    return this.webhookCarries(event) ? this.webhookBody(event, read) : null;
  }

  /** Whether a body of the event's stream adds something read at delivery time (deliveryReadSql). */
  needsDeliveryRead(event: OutboxEvent): boolean {
    return this.webhookCarries(event) && Boolean(this.byStreamType.get(event.streamType)?.deliveryReadSql);
  }

  /** A webhook can subscribe to the event's name, for the stream the event belongs to. */
  private webhookCarries(event: OutboxEvent): boolean {
    return this.names.get(event.name) === event.streamType;
  }

  webhookBody(event: OutboxEvent, read?: unknown): string {
    const definition = this.byStreamType.get(event.streamType);
    if (!definition) throw new Error(`No event types registered for stream ${event.streamType}`);
    return definition.webhookBody(event, read);
  }

  /** The column `delivery_read` of a claim over events `e`: each stream's `deliveryReadSql`, null for the others. */
  deliveryReadColumn(): string {
    const reads = [...this.byStreamType.values()].filter((d) => d.deliveryReadSql);
    if (reads.length === 0) return 'null::jsonb as delivery_read';
    const cases = reads.map((d) => `when '${d.streamType.replace(/'/g, "''")}' then (${d.deliveryReadSql})`).join(' ');
    return `case e.stream_type ${cases} end as delivery_read`;
  }
}

/** The process's registry; the app registers each domain's definition in it at start. */
export const eventTypes = new EventTypeRegistry();
