import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { settleWithin } from '#common';

/** What a subscriber of a channel is told. */
export interface ChangeSubscriber {
  /** A change on the channel committed (the payload is the trigger's, unused by the caches). */
  changed(payload: string | undefined): void;
  /**
   * The listening state changed: `true` once LISTEN is in place on the channel (after a connect or
   * reconnect), `false` as soon as the connection is lost. While false, changes may go unseen.
   */
  listening(live: boolean): void;
}

export interface ChangeNotificationsOptions {
  url: string;
  /** Shown in pg_stat_activity (the tests find and end the connection by it). */
  applicationName: string;
  /** Wait before reconnecting after the connection is lost. */
  reconnectDelayMs?: number;
  /** A connection that stops answering is not always reported by the socket: it is probed this often. */
  heartbeatMs?: number;
}

/** How long a read waits for the listening connection's round trip before it is given up as lost. */
const SYNC_TIMEOUT_MS = 1_000;

/**
 * One dedicated LISTEN connection per process, opened on the first subscription, for the
 * in-process caches that must see every committed change (pg_notify from a trigger or in the
 * writing transaction is delivered only after commit). The connection is never one of the pool's:
 * a pooled connection is handed to other work and LISTEN would leak into it.
 *
 * When the connection is lost (error, end, a failed heartbeat), every subscriber is told at once
 * that it is not listening, and again when LISTEN is back in place, so a cache can bypass itself
 * in between and start empty after a reconnect.
 */
export class ChangeNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger(ChangeNotifications.name);
  private readonly subscribers = new Map<string, Set<ChangeSubscriber>>();
  private client: pg.Client | null = null;
  private live = false;
  private connecting: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;
  /** The barrier round trip in flight, and the one queued behind it (see sync). */
  private current: Promise<boolean> | null = null;
  private queued: Promise<boolean> | null = null;

  constructor(private readonly options: ChangeNotificationsOptions) {}

  /** Subscribes to a channel; the subscriber hears `listening(true)` once LISTEN is in place. */
  subscribe(channel: string, subscriber: ChangeSubscriber): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid notification channel ${channel}`);
    const isNew = !this.subscribers.has(channel);
    const set = this.subscribers.get(channel) ?? new Set();
    set.add(subscriber);
    this.subscribers.set(channel, set);
    const client = this.client;
    if (!client || !this.live) {
      void this.connect();
    } else if (!isNew) {
      subscriber.listening(true);
    } else {
      client.query(`LISTEN ${channel}`).then(
        () => {
          if (this.client === client && this.live) for (const each of set) each.listening(true);
        },
        (error: Error) => this.lost(client, error),
      );
    }
  }

  /**
   * Resolves once every notification of a change committed before this call has been handled
   * (true), or false when not listening. PostgreSQL signals the listening sessions at commit,
   * before the writer hears its commit confirmed, and a listening session sends the notifications
   * it was signalled for before it answers its next query: so the answer to a round trip on this
   * connection that starts after the call comes after those notifications. One round trip serves
   * every caller that arrived before it started; callers arriving while it is in flight share the
   * next one. This makes a cached read exact, not merely quick to follow a change.
   */
  sync(): Promise<boolean> {
    if (!this.live) return Promise.resolve(false);
    if (!this.current) return (this.current = this.roundTrip());
    if (!this.queued) {
      this.queued = this.current.then(() => {
        this.queued = null;
        if (!this.live) return false;
        return (this.current = this.roundTrip());
      });
    }
    return this.queued;
  }

  /** Whether the connection is up with every subscribed channel LISTENed. */
  get isListening(): boolean {
    return this.live;
  }

  private roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client) return Promise.resolve(false);
    let timer: NodeJS.Timeout | undefined;
    // Reads wait for this: a connection that stops answering is given up quickly (reads then go to the database).
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer on the listening connection within ${SYNC_TIMEOUT_MS} ms`)), SYNC_TIMEOUT_MS);
    });
    const trip: Promise<boolean> = Promise.race([client.query('SELECT 1'), timeout])
      .then(
        () => this.client === client && this.live,
        (error: Error) => {
          this.lost(client, error);
          return false;
        },
      )
      .finally(() => {
        clearTimeout(timer);
        if (this.current === trip) this.current = null;
      });
    return trip;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    const client = this.client;
    this.setDown();
    if (client) await endWithin(client, 2_000);
  }

  private connect(): Promise<void> {
    if (this.closed || this.client || this.connecting) return this.connecting ?? Promise.resolve();
    this.connecting = this.open()
      .catch((error: Error) => {
        this.logger.warn({ err: error.message }, 'Change notifications: cannot LISTEN; caches are bypassed until it can');
        this.scheduleReconnect();
      })
      .finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: this.options.applicationName, keepAlive: true, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (message) => {
      for (const subscriber of this.subscribers.get(message.channel) ?? []) subscriber.changed(message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.lost(client, error as Error);
      throw error;
    }
    if (this.client !== client) return;
    this.live = true;
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.listening(true);
    const interval = this.options.heartbeatMs ?? 5_000;
    this.heartbeat = setInterval(() => {
      client.query('SELECT 1').catch((error: Error) => this.lost(client, error));
    }, interval);
    this.heartbeat.unref();
  }

  /** The connection failed: subscribers stop trusting their caches now, and a reconnect is scheduled. */
  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client) return;
    if (!this.closed) this.logger.warn({ err: error.message }, 'Change notifications: connection lost; caches are bypassed until it is back');
    this.setDown();
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private setDown(): void {
    this.client = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.live = false;
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.listening(false);
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      void this.connect();
    }, this.options.reconnectDelayMs ?? 1_000);
    this.reconnect.unref();
  }
}

/**
 * Ends a client, or destroys its socket if the server has not acknowledged within `ms`: a drain
 * must never wait on the listening connection (it carries no work to finish).
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  if (!(await settleWithin(client.end(), ms))) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
