import { canMove, movesToward, sourcesOf, TRANSACTION_STATUSES } from './transaction-status.js';

describe('transaction status moves', () => {
  it('allows exactly the documented moves', () => {
    const allowed = TRANSACTION_STATUSES.flatMap((from) => TRANSACTION_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      ['pending->completed', 'pending->failed', 'pending->review', 'review->completed', 'review->failed', 'completed->reversed'].sort(),
    );
  });

  it('names every status a move may come from', () => {
    expect(sourcesOf('completed')).toEqual(['pending', 'review']);
    expect(sourcesOf('failed')).toEqual(['pending', 'review']);
    expect(sourcesOf('review')).toEqual(['pending']);
    expect(sourcesOf('reversed')).toEqual(['completed']);
    expect(sourcesOf('pending')).toEqual([]);
  });

  it('never reopens a final status', () => {
    for (const to of TRANSACTION_STATUSES) {
      expect(canMove('failed', to)).toBe(false);
      expect(canMove('reversed', to)).toBe(false);
    }
  });

  it.each([
    ['pending', 'completed', ['completed']],
    ['pending', 'failed', ['failed']],
    ['review', 'completed', ['completed']],
    ['review', 'failed', ['failed']],
    ['completed', 'reversed', ['reversed']],
    ['pending', 'reversed', ['completed', 'reversed']],
    ['review', 'reversed', ['completed', 'reversed']],
    ['completed', 'completed', []],
    ['completed', 'failed', []],
    ['failed', 'completed', []],
    ['reversed', 'completed', []],
  ] as const)('from %s, a verified %s gives %j', (from, outcome, expected) => {
    expect(movesToward(from, outcome)).toEqual(expected);
  });
});
