import { purchaseOutcomeOf } from './purchase-outcome.js';

describe('purchaseOutcomeOf', () => {
  it.each([
    ['COMPLETED', 'completed'],
    ['DECLINED', 'failed'],
    ['REJECTED', 'failed'],
    ['CANCELLED', 'failed'],
    ['REVERSED', 'reversed'],
    ['CREATED', 'in_progress'],
    ['CONFIRMED', 'in_progress'],
    ['SUBMITTED', 'in_progress'],
    ['completed', 'completed'],
  ])('maps %s to %s', (statusClass, outcome) => {
    expect(purchaseOutcomeOf(statusClass)).toBe(outcome);
  });

  it('never guesses a final outcome for a status it does not know', () => {
    expect(purchaseOutcomeOf('PENDING-REVIEW')).toBe('in_progress');
  });
});
