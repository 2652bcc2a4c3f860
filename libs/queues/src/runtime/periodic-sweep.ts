import type { Logger } from '@nestjs/common';

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
