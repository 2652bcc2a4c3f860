import { MoneyError, centsFromDecimalString, formatCents, type Cents } from '#money';
import type { JsonBody } from '../json-body.js';
import { badRequest, sandboxError } from '../sandbox-errors.js';

/** The gateway sends `GW_PO_{unique}`; providers accept the usual reference alphabet. */
export const MERCHANT_REFERENCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;

/**
 * A positive ZAR amount with at most two places, within the provider's limits: its cents, and
 * as `text` the two-place decimal string the provider echoes.
 */
export function payoutAmountOf(body: JsonBody, limits: { minCents: Cents; maxCents: Cents }) {
  const raw = body.requiredString('amount');
  let cents: Cents;
  try {
    cents = centsFromDecimalString(raw);
  } catch (error) {
    if (error instanceof MoneyError) throw badRequest('INVALID_FIELD', `amount: ${error.message}`);
    throw error;
  }
  if (cents < limits.minCents || cents > limits.maxCents) {
    throw sandboxError(
      422,
      'AMOUNT_OUT_OF_RANGE',
      `amount must be from ${formatCents(limits.minCents)} to ${formatCents(limits.maxCents)}`,
    );
  }
  return { cents, text: formatCents(cents) };
}
