import { decodeStatementCursor, encodeStatementCursor, lineAmountCents, splitsFee, statementLines, type StatementEntry } from './statement.js';

const entry = (overrides: Partial<StatementEntry>): StatementEntry => ({
  id: 1n, kind: 'fund', amountCents: 0n, availableDeltaCents: 0n, reservedDeltaCents: 0n, createdAt: new Date(0), payoutId: null, payoutReference: null,
  payoutAmountCents: null, payoutFeeCents: null, batchReference: null, ...overrides,
});

describe('statementLines', () => {
  it('splits a settlement into its amount and fee on the side it moves, and keeps running balances', () => {
    const payout = { payoutId: 'p', payoutReference: 'order-1', payoutAmountCents: 15_000n, payoutFeeCents: 500n };
    const lines = statementLines(
      [
        entry({ id: 1n, kind: 'fund', amountCents: 100_000n, availableDeltaCents: 100_000n }),
        entry({ id: 2n, kind: 'reserve', amountCents: 15_500n, availableDeltaCents: -15_500n, reservedDeltaCents: 15_500n, ...payout }),
        entry({ id: 3n, kind: 'settle', amountCents: 15_500n, reservedDeltaCents: -15_500n, ...payout }),
        entry({ id: 4n, kind: 'resettle', amountCents: 15_500n, availableDeltaCents: -15_500n, ...payout }),
        entry({ id: 5n, kind: 'adjust_credit', amountCents: 700n, availableDeltaCents: 700n }),
      ],
      { availableCents: 10n, reservedCents: 0n },
    );
    expect(lines.map((line) => [line.position, line.category, line.availableChangeCents, line.reservedChangeCents, line.after.availableCents, line.after.reservedCents])).toEqual([
      [2n, 'funding', 100_000n, 0n, 100_010n, 0n],
      [4n, 'payout_reserved', -15_500n, 15_500n, 84_510n, 15_500n],
      [6n, 'payout_settled', 0n, -15_000n, 84_510n, 500n],
      [7n, 'fee', 0n, -500n, 84_510n, 0n],
      [8n, 'payout_settled', -15_000n, 0n, 69_510n, 0n],
      [9n, 'fee', -500n, 0n, 69_010n, 0n],
      [10n, 'adjustment', 700n, 0n, 69_710n, 0n],
    ]);
    expect(lines.map(lineAmountCents)).toEqual([100_000n, 15_500n, 15_000n, 500n, 15_000n, 500n, 700n]);
  });

  it('never splits what does not add up to the payout, nor a zero fee', () => {
    expect(splitsFee({ kind: 'settle', amountCents: 15_400n, payoutAmountCents: 15_000n, payoutFeeCents: 500n })).toBe(false);
    expect(splitsFee({ kind: 'settle', amountCents: 15_000n, payoutAmountCents: 15_000n, payoutFeeCents: 0n })).toBe(false);
    expect(splitsFee({ kind: 'release', amountCents: 15_500n, payoutAmountCents: 15_000n, payoutFeeCents: 500n })).toBe(false);
  });
});

describe('statement cursor', () => {
  it('round-trips a position and refuses anything else', () => {
    expect(decodeStatementCursor(encodeStatementCursor(12_345n))).toBe(12_345n);
    expect(decodeStatementCursor('bm90IGEgY3Vyc29y')).toBeNull();
    expect(decodeStatementCursor('%%%')).toBeNull();
    expect(decodeStatementCursor(Buffer.from('p1:0b3f3e8e-0000-4000-8000-000000000000').toString('base64url'))).toBeNull();
  });
});
