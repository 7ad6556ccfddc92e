import { PgliteConnection } from '@mikro-orm/pglite';
import pg from 'pg';
import type { Orm } from '../db/orm.js';
import { logError } from '../../log.js';

/**
 * One PostgreSQL LISTEN channel, whichever database serves it: how the event bus hears that another instance
 * committed events, and tells the others of its own commits. `onPayload` gets each NOTIFY payload; `onReconnected`
 * tells the owner that notifications sent while the connection was down are lost, so it can catch up from the table.
 */
export interface NotificationListener {
  start(onPayload: (payload: string) => void, onReconnected: () => void): Promise<void>;
  /**
   * Sends `payload` on the channel, in a statement of its own, never inside a writing transaction (NOTIFY takes a
   * database-wide lock at its commit). Rejects when the connection is down: the receivers' poll covers it.
   */
  notify(payload: string): Promise<void>;
  stop(): Promise<void>;
}

export function notificationListener(orm: Orm, databaseUrl: string | undefined, channel: string): NotificationListener {
  return databaseUrl ? new PostgresNotificationListener(databaseUrl, channel) : new PgliteNotificationListener(orm, channel);
}

const RECONNECT_FIRST_DELAY_MS = 100;
const RECONNECT_MAX_DELAY_MS = 5_000;
/** Shows in pg_stat_activity, so an operator (or a test) can find the listening connection. */
export const LISTENER_APPLICATION_NAME = 'paygraph-event-listener';

/**
 * A dedicated connection outside the ORM's pool: LISTEN holds its session for the life of the process, which a
 * pooled connection must not. A dropped connection is re-established with capped exponential backoff.
 */
class PostgresNotificationListener implements NotificationListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelay = RECONNECT_FIRST_DELAY_MS;
  private onPayload: (payload: string) => void = () => undefined;
  private onReconnected: () => void = () => undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
  ) {}

  async start(onPayload: (payload: string) => void, onReconnected: () => void): Promise<void> {
    this.onPayload = onPayload;
    this.onReconnected = onReconnected;
    // The first connection must work: an instance that cannot hear events should fail at start, not go quiet.
    await this.connect();
  }

  /**
   * On the listening connection itself: it is outside the request pool, so an announcement never queues behind
   * requests waiting for a connection, and it holds no transaction.
   */
  async notify(payload: string): Promise<void> {
    const client = this.client;
    if (!client) throw new Error('event listener connection is down');
    await client.query('select pg_notify($1, $2)', [this.channel, payload]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: LISTENER_APPLICATION_NAME });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || this.stopped) return;
      lost = true;
      if (error) logError('event listener connection lost', error);
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload) this.onPayload(message.payload);
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_DELAY_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().then(
        () => {
          if (this.stopped) return;
          this.reconnectDelay = RECONNECT_FIRST_DELAY_MS;
          this.onReconnected();
        },
        (error: unknown) => {
          logError('event listener reconnect failed', error);
          this.scheduleReconnect();
        },
      );
    }, delay);
  }
}

/**
 * PGlite is one in-process connection, shared with the ORM; its client delivers notifications to callbacks
 * after the notifying transaction commits, like a server does. It cannot drop, so it never reconnects.
 */
class PgliteNotificationListener implements NotificationListener {
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly channel: string,
  ) {}

  async start(onPayload: (payload: string) => void): Promise<void> {
    const connection = this.orm.em.getDriver().getConnection();
    if (!(connection instanceof PgliteConnection)) throw new Error('Without DATABASE_URL the database must be PGlite');
    const pglite = await connection.getNativeClient();
    this.unlisten = await pglite.listen(this.channel, onPayload);
  }

  /**
   * Nothing to tell: PGlite is one process's database, so no other instance reads it. (Its one connection is the
   * ORM's too, where a NOTIFY could land inside a request's open transaction.)
   */
  async notify(): Promise<void> {}

  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.();
  }
}
