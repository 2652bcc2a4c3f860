import { settleWithin } from './settle-within.js';

describe('settleWithin', () => {
  it('is true for work that resolves or rejects in time', async () => {
    await expect(settleWithin(Promise.resolve('done'), 1_000)).resolves.toBe(true);
    await expect(settleWithin(Promise.reject(new Error('refused')), 1_000)).resolves.toBe(true);
  });

  it('is false, after about the bound, for work that never settles', async () => {
    const started = Date.now();
    await expect(settleWithin(new Promise(() => undefined), 50)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
