import { jest } from '@jest/globals';
import { SweeperService } from './periodic-sweep.js';

class CountingSweeper extends SweeperService {
  ticks = 0;
  release?: () => void;

  constructor(everyMs: number) {
    super('CountingSweeper', 'Counting sweep', () => everyMs);
  }

  override sweep(): Promise<void> {
    this.ticks++;
    return new Promise((resolve) => (this.release = resolve));
  }
}

describe('SweeperService', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ticks every intervalMs from bootstrap, never twice at once, and shutdown waits for the run in progress', async () => {
    const sweeper = new CountingSweeper(1_000);
    jest.advanceTimersByTime(5_000);
    expect(sweeper.ticks).toBe(0);

    sweeper.onApplicationBootstrap();
    jest.advanceTimersByTime(999);
    expect(sweeper.ticks).toBe(0);
    jest.advanceTimersByTime(1);
    expect(sweeper.ticks).toBe(1);
    jest.advanceTimersByTime(3_000);
    expect(sweeper.ticks).toBe(1);

    let stopped = false;
    const shutdown = sweeper.onApplicationShutdown().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    sweeper.release?.();
    await shutdown;
    expect(stopped).toBe(true);
    jest.advanceTimersByTime(10_000);
    expect(sweeper.ticks).toBe(1);
  });
});
