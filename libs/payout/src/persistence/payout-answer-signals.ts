import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { GatewayEnv } from '#config';

/** PostgreSQL channel on which a single payout's submission answer is announced (payload: the payout id). */
export const PAYOUT_ANSWERED_CHANNEL = 'payout_submission_answered';

/**
 * Lets a replay of a payout whose submission is still in flight wait for the answer without
 * reading the database in a loop: the request that submits announces the recorded answer with
 * NOTIFY (after its commit, from whichever gateway process), and one LISTEN connection per
 * process wakes the replays waiting for that payout. A replay re-reads the payout once when woken
 * (or at its deadline, if the submitting process died), so a lost or late notification costs
 * waiting time, never a wrong answer.
 */
@Injectable()
export class PayoutAnswerSignals implements OnApplicationShutdown {
  private readonly logger = new Logger(PayoutAnswerSignals.name);
  private readonly waiters = new Map<string, Set<() => void>>();
  private listener: Promise<pg.Client> | null = null;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: GatewayEnv,
  ) {}

  /**
   * Waits until `answered(current)` holds or `deadline` passes, reading with `read` once before
   * waiting (after the LISTEN is in place, so an answer committed in between is seen) and once
   * per wake-up. Answers the last read.
   */
  async waitFor<T>(payoutId: string, deadline: number, read: () => Promise<T>, answered: (current: T) => boolean): Promise<T> {
    let wake: () => void = () => undefined;
    let woken = new Promise<void>((resolve) => (wake = resolve));
    const waiter = () => wake();
    const listening = await this.listen().then(
      () => true,
      (error: Error) => {
        this.logger.warn({ err: error.message }, 'Cannot LISTEN for payout answers; a replay waits until its deadline');
        return false;
      },
    );
    if (listening) this.subscribe(payoutId, waiter);
    try {
      let current = await read();
      while (!answered(current) && Date.now() < deadline) {
        const abort = new AbortController();
        await Promise.race([woken, sleep(deadline - Date.now(), undefined, { signal: abort.signal }).catch(() => undefined)]);
        abort.abort();
        woken = new Promise<void>((resolve) => (wake = resolve));
        current = await read();
      }
      return current;
    } finally {
      if (listening) this.unsubscribe(payoutId, waiter);
    }
  }

  /** Announces that the payout's submission answer is committed. Best effort: a replay that misses it reads at its deadline. */
  async announce(payoutId: string): Promise<void> {
    try {
      await this.dataSource.query(`SELECT pg_notify($1, $2)`, [PAYOUT_ANSWERED_CHANNEL, payoutId]);
    } catch (error) {
      this.logger.warn({ payoutId, err: (error as Error).message }, 'Could not announce a payout answer');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = null;
    await listener?.then((client) => client.end()).catch(() => undefined);
    for (const waiters of this.waiters.values()) for (const wake of waiters) wake();
  }

  private subscribe(payoutId: string, waiter: () => void): void {
    const set = this.waiters.get(payoutId) ?? new Set();
    set.add(waiter);
    this.waiters.set(payoutId, set);
  }

  private unsubscribe(payoutId: string, waiter: () => void): void {
    const set = this.waiters.get(payoutId);
    set?.delete(waiter);
    if (set?.size === 0) this.waiters.delete(payoutId);
  }

  /** The process's one LISTEN connection, opened on first use and reopened after it fails. */
  private listen(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('shutting down'));
    this.listener ??= (async () => {
      const client = new pg.Client({ connectionString: this.config.DATABASE_URL, application_name: 'payout-answer-listener', connectionTimeoutMillis: 5_000 });
      const drop = (error?: Error) => {
        if (error) this.logger.warn({ err: error.message }, 'Payout answer listener lost its connection');
        if (this.listener === pending) this.listener = null;
        // Waiters re-read now rather than sleep on a connection that can no longer wake them.
        for (const waiters of this.waiters.values()) for (const wake of waiters) wake();
        client.end().catch(() => undefined);
      };
      client.on('error', drop);
      client.on('end', () => drop());
      client.on('notification', (message) => {
        if (message.channel !== PAYOUT_ANSWERED_CHANNEL || !message.payload) return;
        for (const wake of this.waiters.get(message.payload) ?? []) wake();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${PAYOUT_ANSWERED_CHANNEL}`);
      } catch (error) {
        drop();
        throw error;
      }
      return client;
    })();
    const pending = this.listener;
    return pending;
  }
}
