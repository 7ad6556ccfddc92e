import type { OutboxEvent } from './outbox-event.js';

/** What a domain tells the platform about the events it records. */
export interface EventTypeDefinition {
  /** The stream type its events carry, e.g. `payment`; one definition per stream type. */
  streamType: string;
  /** The public names a webhook registration may subscribe to (the outbox `name` of the matching events). */
  webhookEventNames: readonly string[];
  /** The exact body a webhook delivery of one of its events POSTs (the public definition's shape). */
  webhookBody(event: OutboxEvent): string;
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

  webhookBody(event: OutboxEvent): string {
    const definition = this.byStreamType.get(event.streamType);
    if (!definition) throw new Error(`No event types registered for stream ${event.streamType}`);
    return definition.webhookBody(event);
  }
}

/** The process's registry; the app registers each domain's definition in it at start. */
export const eventTypes = new EventTypeRegistry();
