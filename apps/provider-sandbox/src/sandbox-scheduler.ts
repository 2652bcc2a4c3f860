import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/**
 * Owns every timer the sandbox starts (status changes, reversals, hung responses), so closing
 * the app stops them all and lets a test process exit. Timers are unref'd: a pending reversal
 * never keeps a process alive on its own.
 */
@Injectable()
export class SandboxScheduler implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly holds = new Set<() => void>();
  private readonly shutdown = new AbortController();

  /** Aborted when the app closes; outgoing callbacks listen to it. */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  after(delayMs: number, task: () => void): void {
    if (this.shutdown.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      task();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Resolves after `delayMs`, or at once when the app closes, so a hung response never blocks shutdown. */
  hold(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.shutdown.signal.aborted) return resolve();
      const release = () => {
        clearTimeout(timer);
        this.holds.delete(release);
        resolve();
      };
      const timer = setTimeout(release, delayMs);
      timer.unref();
      this.holds.add(release);
    });
  }

  onModuleDestroy(): void {
    this.shutdown.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const release of [...this.holds]) release();
  }
}
