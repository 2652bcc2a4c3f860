import { QueryFailedError } from 'typeorm';
import { DomainError, ValidationFailedError } from '#common';
import { centsFromDbValue, minorUnitsFromCents } from '#money';
import {
  DailyCapExceededError,
  IdempotencyConflictError,
  PricingUnpublishedError,
  ProviderNotConfiguredForPurchasesError,
  PurchasesPausedError,
  QuoteAlreadyUsedError,
  QuoteExpiredError,
  SpendControlsNotConfiguredError,
  TransactionMaximumExceededError,
  VelocityLimitExceededError,
  VendorNotReleasedError,
} from '../model/purchase-errors.js';
import type { AdmissionRefusal } from '../model/admission-refusals.js';

/** The SQLSTATE purchase_admit raises a refusal with (migration 1763781500000); its detail is the JSON below. */
const ADMISSION_REFUSED = 'ZA001';

const KEY_CONFLICT = 'The Idempotency-Key was used with another quote or reference';
const UNKNOWN_QUOTE = 'quote_id does not name a quote of this vendor';
const REFERENCE_CONFLICT = 'The reference belongs to a purchase made with another Idempotency-Key';

function refusalError(refusal: AdmissionRefusal): DomainError {
  switch (refusal.code) {
    case 'IDEMPOTENCY_CONFLICT':
      return new IdempotencyConflictError(refusal.conflict === 'key' ? KEY_CONFLICT : REFERENCE_CONFLICT);
    case 'PROVIDER_NOT_CONFIGURED':
      return new ProviderNotConfiguredForPurchasesError();
    case 'QUOTE_NOT_FOUND':
      // Invalid input, not a missing resource: the same answer for an unknown and another vendor's quote.
      return new ValidationFailedError({ quote_id: [UNKNOWN_QUOTE] });
    case 'QUOTE_ALREADY_USED':
      return new QuoteAlreadyUsedError();
    case 'QUOTE_EXPIRED':
      return new QuoteExpiredError();
    case 'PURCHASES_PAUSED':
      return new PurchasesPausedError(refusal.scope);
    case 'SPEND_CONTROLS_NOT_CONFIGURED':
      return new SpendControlsNotConfiguredError();
    case 'PRICING_UNPUBLISHED':
      return new PricingUnpublishedError();
    case 'VENDOR_NOT_RELEASED':
      return new VendorNotReleasedError();
    case 'TRANSACTION_MAXIMUM_EXCEEDED':
      return new TransactionMaximumExceededError(minorUnitsFromCents(centsFromDbValue(refusal.transaction_max_cents)));
    case 'VELOCITY_LIMIT_EXCEEDED':
      return new VelocityLimitExceededError(refusal.retry_after_seconds);
    case 'DAILY_CAP_EXCEEDED':
      return new DailyCapExceededError(minorUnitsFromCents(centsFromDbValue(refusal.remaining_cents)));
  }
}

/**
 * The domain error for a failed admission statement: a refusal of purchase_admit, or the
 * violation of a unique index that is the last line of defence behind its checks (a stable code
 * either way). Anything else is returned as it is.
 */
export function admissionError(error: unknown): unknown {
  if (!(error instanceof QueryFailedError)) return error;
  const driverError = error.driverError as { code?: string; detail?: string; constraint?: string } | undefined;
  if (driverError?.code === ADMISSION_REFUSED && driverError.detail) return refusalError(JSON.parse(driverError.detail) as AdmissionRefusal);
  if (driverError?.code === '23505') {
    if (driverError.constraint === 'purchase_transactions_quote_key') return new QuoteAlreadyUsedError();
    if (driverError.constraint === 'purchase_transactions_vendor_reference_key') return new IdempotencyConflictError(REFERENCE_CONFLICT);
  }
  return error;
}
