import { ValidationFailedError } from '#common';
import { PAYOUT_METHOD_CATALOGUE, PAYOUT_METHODS, type VendorMethodSetting } from '#payout';
import { changedMeanwhile, methodsChangeOf, type MethodsForm } from './payout-methods-form.js';

/** Every method as the page shows it: disabled, no own fee, the catalogue's limits. */
const current: VendorMethodSetting[] = PAYOUT_METHODS.map((method) => ({
  method,
  enabled: false,
  feeCents: null,
  effectiveFeeCents: 0n,
  minimumCents: PAYOUT_METHOD_CATALOGUE[method].minimumCents,
  maximumCents: PAYOUT_METHOD_CATALOGUE[method].maximumCents,
}));

const zar = (cents: bigint | null) => (cents === null ? '' : (Number(cents) / 100).toFixed(2));

/** The form as rendered from `settings`: the fields and the hidden copies of what they showed. */
function shown(settings: readonly VendorMethodSetting[] = current): MethodsForm {
  const form: MethodsForm = {};
  for (const setting of settings) {
    if (setting.enabled) form[`enabled_${setting.method}`] = 'on';
    form[`shown_enabled_${setting.method}`] = setting.enabled ? 'on' : '';
    for (const [field, cents] of [['fee', setting.feeCents], ['min', setting.minimumCents], ['max', setting.maximumCents]] as const) {
      form[`${field}_${setting.method}`] = zar(cents);
      form[`shown_${field}_${setting.method}`] = zar(cents);
    }
  }
  return form;
}

describe('methodsChangeOf', () => {
  it('asks only for what differs from the page as shown, and keeps the shown values of those fields', () => {
    expect(methodsChangeOf({ ...shown(), enabled_rtc_eft: 'on', fee_rtc_eft: '3.25', max_rtc_eft: '1000.00' })).toEqual({
      change: { enable: ['rtc_eft'], disable: [], fees: { rtc_eft: 325n }, limits: { rtc_eft: { maximumCents: 100_000n } } },
      shown: { rtc_eft: { enabled: false, feeCents: null, maximumCents: PAYOUT_METHOD_CATALOGUE.rtc_eft.maximumCents } },
    });
  });

  it('a blank limit removes the vendor own limit, a blank fee the method fee', () => {
    const withFee = current.map((setting) => (setting.method === 'rtc_eft' ? { ...setting, enabled: true, feeCents: 100n } : setting));
    expect(methodsChangeOf({ ...shown(withFee), fee_rtc_eft: '', min_rtc_eft: '' }).change).toEqual({
      enable: [],
      disable: [],
      fees: { rtc_eft: null },
      limits: { rtc_eft: { minimumCents: null } },
    });
  });

  it('refuses amounts that are not two-decimal ZAR, a form that changes nothing, and a form without the shown values', () => {
    expect(() => methodsChangeOf({ ...shown(), fee_rtc_eft: '3.5' })).toThrow(ValidationFailedError);
    expect(() => methodsChangeOf({ ...shown(), fee_rtc_eft: '-1.00' })).toThrow(ValidationFailedError);
    expect(() => methodsChangeOf(shown())).toThrow(ValidationFailedError);
    expect(() => methodsChangeOf({ enabled_rtc_eft: 'on', fee_rtc_eft: '3.25' })).toThrow(ValidationFailedError);
  });
});

describe('changedMeanwhile', () => {
  const { shown: asShown } = methodsChangeOf({ ...shown(), fee_rtc_eft: '3.25', enabled_bank_b_cardless: 'on' });

  it('finds nothing when the fields this submission changes are as the page showed them, whatever else changed', () => {
    const otherFieldsChanged = current.map((setting) => (setting.method === 'rtc_eft' ? { ...setting, enabled: true, maximumCents: 50_000n } : setting));
    expect(changedMeanwhile(asShown, otherFieldsChanged)).toEqual([]);
  });

  it('names the methods where someone else changed a field this submission changes', () => {
    const feeChanged = current.map((setting) => (setting.method === 'rtc_eft' ? { ...setting, feeCents: 500n } : setting.method === 'bank_b_cardless' ? { ...setting, enabled: true } : setting));
    expect(changedMeanwhile(asShown, feeChanged).sort()).toEqual(['bank_b_cardless', 'rtc_eft'].sort());
  });
});
