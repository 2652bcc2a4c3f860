import { guardedSources, statusLiterals } from './payout-shapes.js';

describe('guarded payout status moves', () => {
  it('guard a move by every source of the transition table by default', () => {
    expect(guardedSources('paid')).toEqual(['pending', 'failed', 'needs_review']);
    expect(guardedSources('failed')).toEqual(['pending', 'needs_review']);
    expect(guardedSources('cancelled')).toEqual(['pending']);
  });

  it('narrow to the sources a method names, as long as the table allows each', () => {
    expect(guardedSources('paid', ['needs_review'])).toEqual(['needs_review']);
    expect(guardedSources('paid', ['failed'])).toEqual(['failed']);
  });

  it('refuse a source the table does not allow (a programming error, never a silent write)', () => {
    expect(() => guardedSources('paid', ['reversed'])).toThrow('reversed → paid');
    expect(() => guardedSources('needs_review', ['pending', 'paid'])).toThrow('paid → needs_review');
  });

  it('writes status literals for partial-index predicates from the typed statuses only', () => {
    expect(statusLiterals(['pending', 'needs_review'])).toBe(`'pending', 'needs_review'`);
  });
});
