import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/**
 * The loop every sweeper shares: runs `sweep` every `intervalMs`, never two runs at once, logs a
 * failed run and tries again on the next tick. The timer does not keep the process alive, and
 * stop() waits for a run in progress so shutdown never cuts one in half.
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly description: string,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number, sweep: () => Promise<unknown>): void {
    this.timer = setInterval(() => {
      this.running ??= sweep()
        .then(() => undefined)
        .catch((error: Error) => this.logger.warn({ err: error.message }, `${this.description} failed`))
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

/**
 * A service that runs its sweep every `intervalMs()` (read at bootstrap) from application
 * bootstrap until shutdown, on a PeriodicSweep (so never twice at once, and shutdown waits for a
 * run in progress). A tick is one sweep() unless the subclass adds to it; it logs through `logger`,
 * named after the subclass.
 */
export abstract class SweeperService implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  private readonly loop: PeriodicSweep;

  protected constructor(
    loggerName: string,
    description: string,
    private readonly intervalMs: () => number,
  ) {
    this.logger = new Logger(loggerName);
    this.loop = new PeriodicSweep(description, this.logger);
  }

  /** Rebuilds what was lost; public so that tests and staff tools can run one sweep on demand. */
  abstract sweep(): Promise<unknown>;

  /** One run of the loop. */
  protected tick(): Promise<unknown> {
    return this.sweep();
  }

  onApplicationBootstrap(): void {
    this.loop.start(this.intervalMs(), () => this.tick());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
