import { HttpStatus } from '@nestjs/common';
import { codesAsMessages, DomainError, type ErrorCatalogue } from '#common';
import { ProviderError, ProviderNotConfiguredError, ProviderRejectedError, ProviderTimeoutError } from '#providers';

/**
 * Stable codes of the purchase contract (its Errors section) with their HTTP status, plus one
 * addition the contract's list lacks (docs/PURCHASE.md, Errors): FULFILMENT_UNAVAILABLE.
 */
export const PURCHASE_ERRORS = codesAsMessages({
  DAILY_CAP_EXCEEDED: HttpStatus.CONFLICT,
  TRANSACTION_MAXIMUM_EXCEEDED: HttpStatus.CONFLICT,
  PURCHASES_PAUSED: HttpStatus.CONFLICT,
  SPEND_CONTROLS_NOT_CONFIGURED: HttpStatus.CONFLICT,
  PRICING_UNPUBLISHED: HttpStatus.CONFLICT,
  VENDOR_NOT_RELEASED: HttpStatus.CONFLICT,
  VELOCITY_LIMIT_EXCEEDED: HttpStatus.TOO_MANY_REQUESTS,
  API_RATE_LIMITED: HttpStatus.TOO_MANY_REQUESTS,
  IDEMPOTENCY_CONFLICT: HttpStatus.CONFLICT,
  QUOTE_ALREADY_USED: HttpStatus.CONFLICT,
  QUOTE_EXPIRED: HttpStatus.CONFLICT,
  PRODUCT_UNAVAILABLE: HttpStatus.UNPROCESSABLE_ENTITY,
  DESTINATION_AMOUNT_INVALID: HttpStatus.UNPROCESSABLE_ENTITY,
  BUDGET_INSUFFICIENT: HttpStatus.UNPROCESSABLE_ENTITY,
  PROVIDER_NOT_CONFIGURED: HttpStatus.SERVICE_UNAVAILABLE,
  PROVIDER_HTTP_ERROR: HttpStatus.SERVICE_UNAVAILABLE,
  PROVIDER_OUTCOME_UNKNOWN: HttpStatus.SERVICE_UNAVAILABLE,
  // Not in the contract's list, which names no code for it: the vendor's own transaction has no
  // delivery data to hand out (yet, or any more). 409: a state conflict, like a quote already used.
  FULFILMENT_UNAVAILABLE: HttpStatus.CONFLICT,
}) satisfies ErrorCatalogue;

export type PurchaseErrorCode = keyof typeof PURCHASE_ERRORS;

// Registers the codes so a DomainError may carry them (see ErrorCodeRegistry).
declare module '#common' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ErrorCodeRegistry extends Record<PurchaseErrorCode, true> {}
}

/** The product is not enabled for the vendor, no longer offered, or not priced in the current version. */
export class ProductUnavailableError extends DomainError {
  constructor(message = 'The product is not available to this vendor') {
    super('PRODUCT_UNAVAILABLE', message);
  }
}

/** The vendor's transaction has no PIN or eSIM data to deliver: not completed (yet), reversed, or a product without any. */
export class FulfilmentUnavailableError extends DomainError {
  constructor() {
    super('FULFILMENT_UNAVAILABLE', 'The transaction has no delivery data to hand out');
  }
}

export class DestinationAmountInvalidError extends DomainError {
  constructor(message: string, fieldErrors: Record<string, string[]> = {}) {
    super('DESTINATION_AMOUNT_INVALID', message, {}, fieldErrors);
  }
}

export class BudgetInsufficientError extends DomainError {
  constructor(minimumChargeMinor: number) {
    super('BUDGET_INSUFFICIENT', 'The budget does not cover the minimum amount', { minimum_charge_minor: minimumChargeMinor });
  }
}

export class QuoteExpiredError extends DomainError {
  constructor() {
    super('QUOTE_EXPIRED', 'The quote has expired; request a new one');
  }
}

export class QuoteAlreadyUsedError extends DomainError {
  constructor() {
    super('QUOTE_ALREADY_USED', 'The quote already funds a transaction');
  }
}

export class PricingUnpublishedError extends DomainError {
  constructor() {
    super('PRICING_UNPUBLISHED', 'No pricing version has been published');
  }
}

export class PurchasesPausedError extends DomainError {
  constructor(readonly scope: 'global' | 'vendor') {
    super('PURCHASES_PAUSED', 'Purchases are paused');
  }
}

export class SpendControlsNotConfiguredError extends DomainError {
  constructor() {
    super('SPEND_CONTROLS_NOT_CONFIGURED', 'Spend controls are not configured for this vendor');
  }
}

export class VendorNotReleasedError extends DomainError {
  constructor() {
    super('VENDOR_NOT_RELEASED', 'The vendor is not yet accepted for production purchases');
  }
}

export class TransactionMaximumExceededError extends DomainError {
  constructor(transactionMaxMinor: number) {
    super('TRANSACTION_MAXIMUM_EXCEEDED', 'The charge exceeds the maximum per transaction', { transaction_max_minor: transactionMaxMinor });
  }
}

export class DailyCapExceededError extends DomainError {
  constructor(remainingMinor: number) {
    super('DAILY_CAP_EXCEEDED', 'The charge exceeds the remaining daily allowance', { remaining_minor: remainingMinor });
  }
}

export class VelocityLimitExceededError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super('VELOCITY_LIMIT_EXCEEDED', 'Too many purchases in the velocity window', {}, {}, retryAfterSeconds);
  }
}

/** The key was used with another quote or reference, or the reference with another key. */
export class IdempotencyConflictError extends DomainError {
  constructor(message: string) {
    super('IDEMPOTENCY_CONFLICT', message);
  }
}

export class ProviderNotConfiguredForPurchasesError extends DomainError {
  constructor() {
    super('PROVIDER_NOT_CONFIGURED', 'The purchase provider is not configured');
  }
}

export class ProviderHttpFailureError extends DomainError {
  constructor() {
    super('PROVIDER_HTTP_ERROR', 'The provider could not be reached or answered with an error');
  }
}

export class ProviderOutcomeUnknownError extends DomainError {
  constructor() {
    super('PROVIDER_OUTCOME_UNKNOWN', 'The provider did not answer in time');
  }
}

/**
 * How a failed provider read reaches a vendor: never the provider's own message, which may
 * carry internals. Anything that is not a provider failure is rethrown as is.
 */
export function vendorErrorForProviderFailure(error: unknown): never {
  if (error instanceof ProviderNotConfiguredError) throw new ProviderNotConfiguredForPurchasesError();
  if (error instanceof ProviderTimeoutError) throw new ProviderOutcomeUnknownError();
  if (error instanceof ProviderRejectedError && error.status >= 400 && error.status < 500 && error.status !== 429) {
    throw new DomainError('VALIDATION_FAILED', 'The provider refused the request', {}, {
      request: [`the provider refused the request${error.providerCode ? ` (${error.providerCode})` : ''}`],
    });
  }
  if (error instanceof ProviderError) throw new ProviderHttpFailureError();
  throw error;
}
