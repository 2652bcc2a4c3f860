import { jest } from '@jest/globals';
import { ClaimLoopService, type ClaimLoopPace, type ClaimRound } from './claim-loop.js';

/** Answers each round with the next scripted result (a ClaimRound, or an error to throw), recording when it ran. */
class ScriptedLoop extends ClaimLoopService {
  readonly ranAt: number[] = [];
  protected readonly description = 'Scripted round';

  constructor(private readonly script: (ClaimRound | Error)[]) {
    super();
  }

  protected pace(): ClaimLoopPace {
    return { batch: 10, idleMs: 100, maxBackoffMs: 1_000 };
  }

  override round(batch: number): Promise<ClaimRound> {
    expect(batch).toBe(10);
    this.ranAt.push(Date.now());
    const next = this.script.shift() ?? { claimed: 0 };
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }
}

/** Lets the timers and the promise callbacks they start run, up to `ms` of fake time. */
async function run(ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 10) {
    await jest.advanceTimersByTimeAsync(10);
  }
}

describe('ClaimLoopService', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('starts the next round at once after a full batch and waits idleMs after a short one', async () => {
    const loop = new ScriptedLoop([{ claimed: 10 }, { claimed: 10 }, { claimed: 3 }, { claimed: 0 }]);
    loop.onApplicationBootstrap();
    await run(250);
    await expect(loop.firstRound).resolves.toBeUndefined();
    await loop.onModuleDestroy();
    // Rounds 1-3 back to back (two full batches; a zero timeout is one fake millisecond), then 100 ms after the short third, then idle again.
    const gaps = loop.ranAt.slice(1).map((at, index) => at - loop.ranAt[index]);
    expect(gaps.slice(0, 4)).toEqual([1, 1, 100, 100]);
  });

  it('backs off, doubling up to maxBackoffMs, after failed rounds or rounds that ask to, and resets on a good one', async () => {
    const loop = new ScriptedLoop([new Error('database down'), { claimed: 5, backOff: true }, new Error('again'), new Error('again'), new Error('again'), { claimed: 1 }, { claimed: 0 }]);
    loop.onApplicationBootstrap();
    await run(4_000);
    await loop.onModuleDestroy();
    const gaps = loop.ranAt.slice(1).map((at, index) => at - loop.ranAt[index]);
    expect(gaps.slice(0, 7)).toEqual([200, 400, 800, 1_000, 1_000, 100, 100]);
  });

  it('runs no round after shutdown', async () => {
    const loop = new ScriptedLoop([]);
    loop.onApplicationBootstrap();
    await run(50);
    await loop.onModuleDestroy();
    const rounds = loop.ranAt.length;
    await run(1_000);
    expect(loop.ranAt.length).toBe(rounds);
  });
});
