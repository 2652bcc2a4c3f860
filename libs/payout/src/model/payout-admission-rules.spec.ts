import { PAYOUT_METHOD_CATALOGUE, type PayoutMethod } from './payout-method-catalogue.js';
import { effectiveFeeCents, type EffectiveMethodPolicy } from './method-policy.js';
import { admissionErrorOf, admitPayout } from './payout-admission-rules.js';
import type { PayoutRequestInput } from './payout-request.js';

function policies(overrides: Partial<Record<PayoutMethod, Partial<EffectiveMethodPolicy>>> = {}, enabled: PayoutMethod[] = Object.keys(PAYOUT_METHOD_CATALOGUE) as PayoutMethod[]) {
  return new Map(
    enabled.map((method) => {
      const definition = PAYOUT_METHOD_CATALOGUE[method];
      return [method, { definition, minimumCents: definition.minimumCents, maximumCents: definition.maximumCents, incrementCents: definition.incrementCents, feeCents: 500n, ...overrides[method] }];
    }),
  );
}

const request = (overrides: Partial<PayoutRequestInput> = {}): PayoutRequestInput => ({
  reference: 'r1',
  amount: '100.00',
  currency: 'ZAR',
  method: 'bank_a_instant_money',
  recipient: { first_name: 'T', surname: 'M', phone: '27821234567', id_type: 'RSAID', id_number: '8001015009087', country_of_issue: 'ZA', nationality: 'ZA' },
  ...overrides,
});

describe('admitPayout', () => {
  it('admits a valid payout with its amount and snapshotted fee in cents', () => {
    const { admitted, problems } = admitPayout(request(), policies());
    expect(problems).toEqual([]);
    expect(admitted).toMatchObject({ method: 'bank_a_instant_money', amountCents: 10_000n, feeCents: 500n });
  });

  it('refuses a cash amount off the R10 step with an increment problem only', () => {
    const { admitted, problems } = admitPayout(request({ amount: '105.00' }), policies());
    expect(admitted).toBeNull();
    expect(problems).toEqual([{ field: 'amount', message: expect.stringContaining('multiple of 10.00'), kind: 'increment' }]);
    expect(admissionErrorOf(problems).code).toBe('AMOUNT_INCREMENT_INVALID');
  });

  it('accepts cents on vouchers and rtc_eft', () => {
    expect(admitPayout(request({ method: 'voucher_type_1', amount: '1.01' }), policies()).problems).toEqual([]);
  });

  it('uses the vendor-tightened limits', () => {
    const tightened = policies({ bank_a_instant_money: { minimumCents: 5_000n, maximumCents: 10_000n } });
    expect(admitPayout(request({ amount: '40.00' }), tightened).problems[0]).toMatchObject({ field: 'amount', kind: 'validation' });
    expect(admitPayout(request({ amount: '110.00' }), tightened).problems[0].message).toContain('from 50.00 to 100.00');
  });

  it('reports a disabled method as METHOD_UNAVAILABLE, and an increment problem as AMOUNT_INCREMENT_INVALID whatever else is wrong', () => {
    const { problems } = admitPayout(request(), policies({}, ['rtc_eft']));
    expect(admissionErrorOf(problems).code).toBe('METHOD_UNAVAILABLE');
    const mixed = admitPayout(request({ amount: '105.00', currency: 'USD' }), policies()).problems;
    expect(admissionErrorOf(mixed).code).toBe('AMOUNT_INCREMENT_INVALID');
    expect(admissionErrorOf(mixed).fieldErrors).toEqual({ currency: [expect.any(String)], amount: [expect.any(String)] });
    const withoutIncrement = admitPayout(request({ amount: '100.00', currency: 'USD' }), policies()).problems;
    expect(admissionErrorOf(withoutIncrement).code).toBe('VALIDATION_FAILED');
  });

  it('requires a bank account for rtc_eft and prefixes batch fields', () => {
    const { problems } = admitPayout(request({ method: 'rtc_eft', amount: '10.01' }), policies(), 'payouts.7.');
    expect(problems).toEqual([{ field: 'payouts.7.recipient.bank_account', message: expect.any(String), kind: 'validation' }]);
  });
});

describe('effectiveFeeCents', () => {
  it('prefers the per-method vendor fee, else zero for vouchers, else the account fee', () => {
    expect(effectiveFeeCents(PAYOUT_METHOD_CATALOGUE.voucher_type_1, null, 500n)).toBe(0n);
    expect(effectiveFeeCents(PAYOUT_METHOD_CATALOGUE.voucher_type_1, 150n, 500n)).toBe(150n);
    expect(effectiveFeeCents(PAYOUT_METHOD_CATALOGUE.rtc_eft, null, 500n)).toBe(500n);
    expect(effectiveFeeCents(PAYOUT_METHOD_CATALOGUE.bank_b_cardless, 0n, 500n)).toBe(0n);
  });
});
