import { ValidationFailedError } from '#common';
import { type Cents } from '#money';
import { requireZarCents } from '#staff';
import { type MethodConfigurationChange, type VendorMethodSetting } from '#payout';

/** The payout methods form's fields for one method: `enabled_<m>` (checkbox), `fee_<m>`, `min_<m>`, `max_<m>` (ZAR, two decimals). */
export type MethodsForm = Record<string, string | undefined>;

/**
 * The change a submitted payout methods form asks for, as `ops payout:methods` would take it:
 * only what differs from the settings the form showed. A blank fee removes the method's own fee
 * (the account's fee_per_payout applies); a blank minimum or maximum removes the vendor's own
 * limit (the catalogue's applies). PayoutMethodsService refuses limits beyond the catalogue.
 */
export function methodsChangeOf(form: MethodsForm, current: readonly VendorMethodSetting[]): MethodConfigurationChange {
  const problems: Record<string, string[]> = {};
  const amount = (field: string): Cents | null | undefined => {
    if ((form[field] ?? '').trim() === '') return null;
    try {
      return requireZarCents(form[field], field, 'Enter a ZAR amount with two decimals, e.g. 5.00, or leave it blank.');
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      Object.assign(problems, error.fieldErrors);
      return undefined;
    }
  };
  const change = { enable: [] as string[], disable: [] as string[], fees: {} as Record<string, Cents | null>, limits: {} as Record<string, { minimumCents?: Cents | null; maximumCents?: Cents | null }> };
  for (const setting of current) {
    const method = setting.method;
    const enabled = form[`enabled_${method}`] !== undefined;
    if (enabled !== setting.enabled) (enabled ? change.enable : change.disable).push(method);
    const fee = amount(`fee_${method}`);
    if (fee !== undefined && fee !== setting.feeCents) change.fees[method] = fee;
    const minimum = amount(`min_${method}`);
    const maximum = amount(`max_${method}`);
    // The form shows the effective limits; a value left as shown is not a change.
    const limits: { minimumCents?: Cents | null; maximumCents?: Cents | null } = {};
    if (minimum !== undefined && minimum !== setting.minimumCents) limits.minimumCents = minimum;
    if (maximum !== undefined && maximum !== setting.maximumCents) limits.maximumCents = maximum;
    if (Object.keys(limits).length > 0) change.limits[method] = limits;
  }
  if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
  if (change.enable.length + change.disable.length + Object.keys(change.fees).length + Object.keys(change.limits).length === 0) {
    throw new ValidationFailedError({ methods: ['Nothing changed.'] });
  }
  return change;
}
