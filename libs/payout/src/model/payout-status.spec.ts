import { canMove, PAYOUT_STATUSES, sourcesOf } from './payout-status.js';

describe('payout status moves', () => {
  it('allows exactly the moves the guarded updates allowed before the table (markPaid, markPaidAfterRelease, markPaidByStaff, markFailed, markReversed, markNeedsReview, markCancelled)', () => {
    const allowed = PAYOUT_STATUSES.flatMap((from) => PAYOUT_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        'pending->paid', // markPaid
        'needs_review->paid', // markPaid, markPaidByStaff
        'failed->paid', // markPaidAfterRelease
        'pending->failed', // markFailed
        'needs_review->failed', // markFailed
        'paid->reversed', // markReversed
        'pending->needs_review', // markNeedsReview
        'pending->cancelled', // markCancelled (its caller checks pending under the row lock)
      ].sort(),
    );
  });

  it('never reopens reversed or cancelled', () => {
    for (const to of PAYOUT_STATUSES) {
      expect(canMove('reversed', to)).toBe(false);
      expect(canMove('cancelled', to)).toBe(false);
    }
  });

  it.each([
    ['paid', ['pending', 'failed', 'needs_review']],
    ['failed', ['pending', 'needs_review']],
    ['reversed', ['paid']],
    ['needs_review', ['pending']],
    ['cancelled', ['pending']],
    ['pending', []],
  ] as const)('%s is reached from %j', (to, sources) => {
    expect(sourcesOf(to)).toEqual(sources);
  });
});
