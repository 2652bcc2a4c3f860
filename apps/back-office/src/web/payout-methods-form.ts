import { ValidationFailedError } from '#common';
import { type Cents } from '#money';
import { PAYOUT_METHODS, type MethodConfigurationChange, type VendorMethodSetting } from '#payout';
import { requireZarCents } from '#staff';

/**
 * The payout methods form's fields for one method: `enabled_<m>` (checkbox), `fee_<m>`, `min_<m>`,
 * `max_<m>` (ZAR, two decimals), and the same four as the page showed them, in hidden fields
 * `shown_enabled_<m>` ("on" or blank), `shown_fee_<m>`, `shown_min_<m>`, `shown_max_<m>`.
 */
export type MethodsForm = Record<string, string | undefined>;

/** One method's settings as the form holds them: a blank amount is null. */
type MethodValues = Pick<VendorMethodSetting, 'enabled' | 'feeCents'> & { minimumCents: Cents | null; maximumCents: Cents | null };

/** What a submitted form asks for: the change, and per method the shown value of each field the staff member changed. */
export interface MethodsSubmission {
  change: MethodConfigurationChange;
  shown: Record<string, Partial<MethodValues>>;
}

const FIELDS = ['enabled', 'feeCents', 'minimumCents', 'maximumCents'] as const;

const OUT_OF_DATE = 'This form is out of date: reload the page and make your change again.';

/**
 * The change a submitted payout methods form asks for, as `ops payout:methods` would take it: only
 * the fields the staff member changed, found by comparing each field with the value the page showed
 * (not with the settings as they are now, which someone else may have changed meanwhile: see
 * changedMeanwhile). A blank fee removes the method's own fee (the account's fee_per_payout
 * applies); a blank minimum or maximum removes the vendor's own limit (the catalogue's applies).
 * PayoutMethodsService refuses limits beyond the catalogue.
 */
export function methodsChangeOf(form: MethodsForm): MethodsSubmission {
  const problems: Record<string, string[]> = {};
  const amount = (field: string, problem: string): Cents | null | undefined => {
    if ((form[field] ?? '').trim() === '') return null;
    try {
      return requireZarCents(form[field], field, problem);
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      Object.assign(problems, error.fieldErrors);
      return undefined;
    }
  };
  const typed = (field: string) => amount(field, 'Enter a ZAR amount with two decimals, e.g. 5.00, or leave it blank.');
  const hidden = (field: string) => amount(field, OUT_OF_DATE);
  const change = { enable: [] as string[], disable: [] as string[], fees: {} as Record<string, Cents | null>, limits: {} as Record<string, { minimumCents?: Cents | null; maximumCents?: Cents | null }> };
  const shown: MethodsSubmission['shown'] = {};
  for (const method of PAYOUT_METHODS) {
    if (form[`shown_enabled_${method}`] === undefined) {
      problems.methods = [OUT_OF_DATE];
      continue;
    }
    const was: Partial<MethodValues> = { enabled: form[`shown_enabled_${method}`] === 'on', feeCents: hidden(`shown_fee_${method}`), minimumCents: hidden(`shown_min_${method}`), maximumCents: hidden(`shown_max_${method}`) };
    const now: Partial<MethodValues> = { enabled: form[`enabled_${method}`] !== undefined, feeCents: typed(`fee_${method}`), minimumCents: typed(`min_${method}`), maximumCents: typed(`max_${method}`) };
    const changed = FIELDS.filter((field) => now[field] !== undefined && was[field] !== undefined && now[field] !== was[field]);
    if (changed.length === 0) continue;
    shown[method] = Object.fromEntries(changed.map((field) => [field, was[field]]));
    if (changed.includes('enabled')) (now.enabled ? change.enable : change.disable).push(method);
    if (changed.includes('feeCents')) change.fees[method] = now.feeCents ?? null;
    const limits = Object.fromEntries(changed.filter((field) => field === 'minimumCents' || field === 'maximumCents').map((field) => [field, now[field] ?? null]));
    if (Object.keys(limits).length > 0) change.limits[method] = limits;
  }
  if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
  if (Object.keys(shown).length === 0) throw new ValidationFailedError({ methods: ['Nothing changed.'] });
  return { change, shown };
}

/**
 * The methods whose settings someone else changed since the page was shown, among the fields this
 * submission changes: the current value differs from the one the page showed. Checked on the
 * settings read in the transaction that applies the change, under the vendor's row lock.
 */
export function changedMeanwhile(shown: MethodsSubmission['shown'], current: readonly VendorMethodSetting[]): string[] {
  return current
    .filter((setting) => Object.entries(shown[setting.method] ?? {}).some(([field, value]) => setting[field as keyof MethodValues] !== value))
    .map((setting) => setting.method);
}

/** The refusal when someone else changed a method this submission changes: nothing is written. */
export function changedBySomeoneElse(methods: readonly string[]): ValidationFailedError {
  return new ValidationFailedError({
    methods: [`Changed by someone else since you loaded this page: ${methods.join(', ')}. Nothing was saved. Reload the page (it now shows the current settings) and make your change again.`],
  });
}
