import { addRowViolations, type InvariantReport } from './invariant-report.js';

const emptyReport = (): InvariantReport => ({ ok: true, checkedAt: '2026-11-24T08:00:00.000Z', scope: { vendors: 'all', sandboxes: [] }, examined: {}, violations: [], warnings: [] });

describe('addRowViolations', () => {
  it("makes each row's id its subject and its other columns, then the extra fields, its details", () => {
    const report = emptyReport();
    addRowViolations(
      report,
      'payoutHoldsJustified',
      [
        { id: 'a1', status: 'pending', hold_cents: '155' },
        { id: 7, status: 'pending', hold_cents: '205' },
      ],
      { problem: 'no status poll scheduled' },
    );
    expect(report.violations).toEqual([
      { invariant: 'payoutHoldsJustified', subject: 'a1', details: { status: 'pending', hold_cents: '155', problem: 'no status poll scheduled' } },
      { invariant: 'payoutHoldsJustified', subject: '7', details: { status: 'pending', hold_cents: '205', problem: 'no status poll scheduled' } },
    ]);
  });

  it('records nothing for no rows', () => {
    const report = emptyReport();
    addRowViolations(report, 'releasedPayoutNotProvedPaid', []);
    expect(report.violations).toEqual([]);
  });
});
