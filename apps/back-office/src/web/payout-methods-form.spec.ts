import { ValidationFailedError } from '#common';
import { PAYOUT_METHOD_CATALOGUE, PAYOUT_METHODS, type VendorMethodSetting } from '#payout';
import { methodsChangeOf, type MethodsForm } from './payout-methods-form.js';

/** Every method as the page shows it: disabled, no own fee, the catalogue's limits. */
const current: VendorMethodSetting[] = PAYOUT_METHODS.map((method) => ({
  method,
  enabled: false,
  feeCents: null,
  effectiveFeeCents: 0n,
  minimumCents: PAYOUT_METHOD_CATALOGUE[method].minimumCents,
  maximumCents: PAYOUT_METHOD_CATALOGUE[method].maximumCents,
}));

/** The form as rendered: fees blank, limits as shown (two decimals). */
function shown(): MethodsForm {
  const form: MethodsForm = {};
  for (const setting of current) {
    form[`fee_${setting.method}`] = '';
    form[`min_${setting.method}`] = (Number(setting.minimumCents) / 100).toFixed(2);
    form[`max_${setting.method}`] = (Number(setting.maximumCents) / 100).toFixed(2);
  }
  return form;
}

describe('methodsChangeOf', () => {
  it('asks only for what differs from the page as shown', () => {
    expect(methodsChangeOf({ ...shown(), enabled_rtc_eft: 'on', fee_rtc_eft: '3.25', max_rtc_eft: '1000.00' }, current)).toEqual({
      enable: ['rtc_eft'],
      disable: [],
      fees: { rtc_eft: 325n },
      limits: { rtc_eft: { maximumCents: 100_000n } },
    });
  });

  it('a blank limit removes the vendor own limit, a blank fee the method fee', () => {
    const withFee = current.map((setting) => (setting.method === 'rtc_eft' ? { ...setting, enabled: true, feeCents: 100n } : setting));
    expect(methodsChangeOf({ ...shown(), enabled_rtc_eft: 'on', fee_rtc_eft: '', min_rtc_eft: '' }, withFee)).toEqual({
      enable: [],
      disable: [],
      fees: { rtc_eft: null },
      limits: { rtc_eft: { minimumCents: null } },
    });
  });

  it('refuses amounts that are not two-decimal ZAR, and a form that changes nothing', () => {
    expect(() => methodsChangeOf({ ...shown(), fee_rtc_eft: '3.5' }, current)).toThrow(ValidationFailedError);
    expect(() => methodsChangeOf({ ...shown(), fee_rtc_eft: '-1.00' }, current)).toThrow(ValidationFailedError);
    expect(() => methodsChangeOf(shown(), current)).toThrow(ValidationFailedError);
  });
});
