import { payoutOutcomeOf } from './payout-outcome.js';

describe('payoutOutcomeOf', () => {
  it.each([
    ['PAID', 'paid'],
    ['REJECTED', 'rejected'],
    ['PENDING', 'pending'],
    ['REVERSED', 'reversed'],
    ['paid', 'paid'],
  ])('maps %s to %s', (status, outcome) => {
    expect(payoutOutcomeOf(status)).toBe(outcome);
  });

  it('keeps a status it does not know as unknown', () => {
    expect(payoutOutcomeOf('PROCESSING_AT_BANK')).toBe('unknown');
  });
});
