import { SettlementReportFormatError, settlementLineOf } from './settlement-report.js';

const LINE = {
  provider_reference: 'p-1',
  merchant_reference: 'm-1',
  amount: '150.05',
  currency: 'ZAR',
  status: 'PAID',
  settled_at: '2026-03-10T08:00:00.000Z',
  reversed_at: null,
};

describe('settlementLineOf', () => {
  it('reads amounts as exact cents, never through a float', () => {
    expect(settlementLineOf({ ...LINE, amount: '12345678901.99' }, 'PAID', 'line 1').amountCents).toBe(1_234_567_890_199n);
    expect(settlementLineOf(LINE, 'PAID', 'line 1')).toMatchObject({ amountCents: 15_005n, status: 'settled', providerStatus: 'PAID' });
  });

  it('maps REVERSED and requires its date', () => {
    expect(settlementLineOf({ ...LINE, status: 'REVERSED', reversed_at: '2026-03-11T08:00:00Z' }, 'PAID', 'x').status).toBe('reversed');
    expect(() => settlementLineOf({ ...LINE, status: 'REVERSED' }, 'PAID', 'x')).toThrow('needs reversed_at');
  });

  it.each([
    ['a numeric amount', { amount: 150.05 }],
    ['three decimals', { amount: '1.005' }],
    ['an unknown status', { status: 'SETTLED' }],
    ['a missing reference', { merchant_reference: undefined }],
    ['a bad timestamp', { settled_at: 'yesterday' }],
  ])('refuses %s with a clear error naming the line', (_name, change) => {
    expect(() => settlementLineOf({ ...LINE, ...change }, 'PAID', 'page 2 line 7')).toThrow(SettlementReportFormatError);
    expect(() => settlementLineOf({ ...LINE, ...change }, 'PAID', 'page 2 line 7')).toThrow(/page 2 line 7/);
  });
});
