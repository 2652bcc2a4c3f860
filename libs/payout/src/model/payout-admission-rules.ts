import { ValidationFailedError, type DomainError } from '#common';
import { formatCents, parseZarAmount2dp, type Cents } from '#money';
import type { EffectiveMethodPolicy } from './method-policy.js';
import { isPayoutMethod, type PayoutMethod } from './payout-method-catalogue.js';
import { AmountIncrementInvalidError, MethodUnavailableError } from './payout-errors.js';
import type { PayoutRecord } from './payout-record.js';
import type { PayoutRequestInput } from './payout-request.js';

export type AdmissionProblemKind = 'validation' | 'increment' | 'method_unavailable';

export interface AdmissionProblem {
  field: string;
  message: string;
  kind: AdmissionProblemKind;
}

/** What a payout's row takes from its admission; the fee is snapshotted: later fee changes never touch this payout. */
export type AdmittedPayout = Pick<PayoutRecord, 'method' | 'amountCents' | 'feeCents'>;

/**
 * The rules that depend on the vendor's methods (the request's shape is already checked by the
 * DTO): method enabled, amount within the method's limits and on its increment, bank account
 * for rtc_eft. `fieldPrefix` is `payouts.3.` for batch items.
 */
export function admitPayout(
  request: PayoutRequestInput,
  policies: ReadonlyMap<PayoutMethod, EffectiveMethodPolicy>,
  fieldPrefix = '',
): { admitted: AdmittedPayout | null; problems: AdmissionProblem[] } {
  const problems: AdmissionProblem[] = [];
  const problem = (field: string, message: string, kind: AdmissionProblemKind = 'validation') => problems.push({ field: `${fieldPrefix}${field}`, message, kind });

  if (request.currency !== 'ZAR') problem('currency', 'currency must be ZAR');
  let amountCents: Cents | null = null;
  try {
    amountCents = parseZarAmount2dp(request.amount);
    if (amountCents <= 0n) {
      problem('amount', 'amount must be greater than zero');
      amountCents = null;
    }
  } catch {
    problem('amount', 'amount must be a decimal string with two places, such as "100.00"');
  }
  if (!isPayoutMethod(request.method)) {
    problem('method', 'method must be one of the payout methods listed by GET /api/v1/methods');
    return { admitted: null, problems };
  }
  const policy = policies.get(request.method);
  if (!policy) {
    problem('method', `${request.method} is not enabled for this account`, 'method_unavailable');
    return { admitted: null, problems };
  }
  if (policy.definition.requiresBankAccount && !request.recipient?.bank_account) {
    problem('recipient.bank_account', `bank_account is required for ${request.method}`);
  }
  if (amountCents !== null) {
    if (amountCents < policy.minimumCents || amountCents > policy.maximumCents) {
      problem('amount', `amount must be from ${formatCents(policy.minimumCents)} to ${formatCents(policy.maximumCents)} for ${request.method}`);
    }
    if (amountCents % policy.incrementCents !== 0n) {
      problem('amount', `amount must be a multiple of ${formatCents(policy.incrementCents)} for ${request.method}`, 'increment');
    }
  }
  if (problems.length > 0 || amountCents === null) return { admitted: null, problems };
  return { admitted: { method: request.method, amountCents, feeCents: policy.feeCents }, problems };
}

/**
 * One error for all problems, each field keeping its messages: AMOUNT_INCREMENT_INVALID whenever
 * an amount is off its method's increment (the contract's code for it, whatever else is wrong),
 * else METHOD_UNAVAILABLE when every problem is an unavailable method, else VALIDATION_FAILED.
 */
export function admissionErrorOf(problems: readonly AdmissionProblem[]): DomainError {
  const fieldErrors: Record<string, string[]> = {};
  for (const { field, message } of problems) fieldErrors[field] = [...(fieldErrors[field] ?? []), message];
  const kinds = new Set(problems.map((problem) => problem.kind));
  if (kinds.has('increment')) return new AmountIncrementInvalidError(fieldErrors);
  if (kinds.size === 1 && kinds.has('method_unavailable')) return new MethodUnavailableError(fieldErrors);
  return new ValidationFailedError(fieldErrors);
}
