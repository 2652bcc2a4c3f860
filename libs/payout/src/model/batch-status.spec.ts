import { batchStatusOf } from './batch-status.js';

describe('batchStatusOf', () => {
  it.each([
    [['pending', 'paid'], 'processing'],
    [['pending', 'needs_review'], 'processing'],
    [['needs_review', 'paid', 'failed'], 'needs_review'],
    [['paid', 'paid'], 'completed'],
    [['paid', 'failed'], 'completed_with_failures'],
    [['paid', 'reversed'], 'completed_with_failures'],
    [['cancelled', 'paid'], 'completed_with_failures'],
    [['cancelled', 'cancelled'], 'cancelled'],
    [['failed'], 'completed_with_failures'],
  ] as const)('%j -> %s', (statuses, expected) => {
    expect(batchStatusOf(statuses)).toBe(expected);
  });
});
