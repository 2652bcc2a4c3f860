import { DomainError } from '#common';

/** The product is not enabled for the vendor, no longer offered, or not priced in the current version. */
export class ProductUnavailableError extends DomainError {
  constructor(message = 'The product is not available to this vendor') {
    super('PRODUCT_UNAVAILABLE', message);
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
