import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';

/** How a claim loop paces itself (ClaimLoopService). */
export interface ClaimLoopPace {
  /** The most one round claims. */
  batch: number;
  /** The pause after a round that found less than a full batch (nothing more is waiting). */
  idleMs: number;
  /** The longest pause after failed rounds (it doubles from idleMs per failure in a row). */
  maxBackoffMs: number;
}

/** What one round did: how many items it claimed, and whether the loop should back off (a dependency could not be reached). */
export interface ClaimRound {
  claimed: number;
  backOff?: boolean;
}

/**
 * Work claimed from PostgreSQL in batches (`FOR UPDATE SKIP LOCKED`) instead of delivered one job
 * at a time through Redis: PostgreSQL already holds the work (the rows are its durable record),
 * so a round costs one claim statement for up to a batch of items, and replicas share the rows
 * without a broker. A full batch means more is waiting and the next round starts at once; a short
 * one waits `idleMs`; a failed round, or one that asks to back off, waits twice as long as the
 * last, up to `maxBackoffMs`. Never two rounds at once; shutdown waits for the round in flight.
 */
export abstract class ClaimLoopService implements OnApplicationBootstrap, OnModuleDestroy {
  /** Under the concrete loop's class name, so a log line says which loop wrote it. */
  protected readonly logger = new Logger(this.constructor.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private backoffMs = 0;
  private endFirstRound!: () => void;
  /** Settles once the first round after bootstrap has ended, whatever it found (tests wait for it before claiming by hand). */
  readonly firstRound = new Promise<void>((resolve) => (this.endFirstRound = resolve));

  /** What the log lines call one round ('Purchase check round'). */
  protected abstract readonly description: string;

  /** The pace, read again before every round. */
  protected abstract pace(): ClaimLoopPace;

  /** Claims up to `batch` items and works them; public so tests and tools can run one round. */
  abstract round(batch: number): Promise<ClaimRound>;

  /**
   * Works a round's claimed items at once. One that fails is logged and left: its lease runs out
   * and a later round claims it again, so the others' work is not lost with it.
   */
  protected async workEach<T>(items: readonly T[], idOf: (item: T) => string, work: (item: T) => Promise<unknown>): Promise<void> {
    const results = await Promise.allSettled(items.map(work));
    for (const [index, result] of results.entries()) {
      if (result.status === 'rejected') this.logger.warn({ id: idOf(items[index]), err: (result.reason as Error).message }, `${this.description}: an item failed; claimed again when its lease ends`);
    }
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  /**
   * Stops at the first shutdown hook, before the queue workers' close (which waits for Redis and
   * for jobs in flight and can take long): a closing process claims nothing more, whatever else of
   * its shutdown is still pending, and the database is still open for the round in flight.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runRound().finally(() => (this.running = undefined));
    }, delayMs);
    // The loop never keeps the process alive on its own.
    this.timer.unref();
  }

  private async runRound(): Promise<void> {
    const { batch, idleMs, maxBackoffMs } = this.pace();
    let next: number;
    try {
      const result = await this.round(batch);
      if (result.backOff) next = this.backOff(idleMs, maxBackoffMs);
      else {
        this.backoffMs = 0;
        next = result.claimed >= batch ? 0 : idleMs;
      }
    } catch (error) {
      next = this.backOff(idleMs, maxBackoffMs);
      this.logger.warn({ err: (error as Error).message, retryInMs: next }, `${this.description} failed`);
    }
    this.endFirstRound();
    this.schedule(next);
  }

  private backOff(idleMs: number, maxBackoffMs: number): number {
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, idleMs * 2), maxBackoffMs);
    return this.backoffMs;
  }
}
