import { HttpStatus } from '@nestjs/common';
import { DomainError, type ErrorCatalogue } from '#common';

/** Payout codes with their HTTP status and the fixed, user-safe message the contract requires. */
export const PAYOUT_ERRORS = {
  REFERENCE_CONFLICT: { status: HttpStatus.CONFLICT, message: 'This reference was already used with different details.' },
  AMOUNT_INCREMENT_INVALID: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'The amount is not a multiple of the method increment.' },
  INSUFFICIENT_FUNDS: { status: HttpStatus.CONFLICT, message: 'The account balance does not cover the amount plus fee.' },
  ACCOUNT_IN_DEBT: { status: HttpStatus.CONFLICT, message: 'The account is in debt: a payout released earlier was paid by the provider. Fund the account before new payouts.' },
  PROVIDER_REJECTED: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'The provider rejected the payout.' },
  // The contract's code for the SMS resend cooldown and the provider's resend cap.
  RATE_LIMITED: { status: HttpStatus.TOO_MANY_REQUESTS, message: 'Too many requests. Retry after the indicated time.' },
  // The general per-token API throttle (the purchase gateway's code): not an SMS cooldown.
  API_RATE_LIMITED: { status: HttpStatus.TOO_MANY_REQUESTS, message: 'Too many API requests for this token. Slow down and retry after the indicated time.' },
  METHOD_UNAVAILABLE: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'This method is not available for this operation.' },
  PROVIDER_NOT_CONFIGURED: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'The payout provider is not configured.' },
  VENDOR_NOT_RELEASED: { status: HttpStatus.CONFLICT, message: 'The account is not yet accepted for production.' },
  PAYOUT_NOT_PAID: { status: HttpStatus.CONFLICT, message: 'The payout is not paid, so this is not available yet.' },
  PROVIDER_UNAVAILABLE: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'The provider did not answer. Retry later.' },
} as const satisfies ErrorCatalogue;

export type PayoutErrorCode = keyof typeof PAYOUT_ERRORS;

// Registers the codes so a DomainError may carry them (see ErrorCodeRegistry).
declare module '#common' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ErrorCodeRegistry extends Record<PayoutErrorCode, true> {}
}

export class ReferenceConflictError extends DomainError {
  constructor() {
    super('REFERENCE_CONFLICT', 'Reference reused with a different payload');
  }
}

export class AmountIncrementInvalidError extends DomainError {
  constructor(fieldErrors: Record<string, string[]>) {
    super('AMOUNT_INCREMENT_INVALID', 'Amount is not a multiple of the method increment', {}, fieldErrors);
  }
}

export class MethodUnavailableError extends DomainError {
  constructor(fieldErrors: Record<string, string[]> = {}) {
    super('METHOD_UNAVAILABLE', 'Method not available for this operation', {}, fieldErrors);
  }
}

/** Delivery and SMS resend exist only once the provider paid. */
export class PayoutNotPaidError extends DomainError {
  constructor() {
    super('PAYOUT_NOT_PAID', 'Payout is not paid');
  }
}

/** The provider refused an SMS resend. */
export class ProviderRejectedRequestError extends DomainError {
  constructor() {
    super('PROVIDER_REJECTED', 'The provider refused the request');
  }
}

/**
 * The provider refused the payout: it is recorded `failed` (`provider_rejected`) with its hold
 * released, and the request (and any replay of it) answers this error instead of the payout.
 */
export class PayoutRejectedError extends DomainError {
  constructor() {
    super('PROVIDER_REJECTED', 'The provider refused the payout');
  }
}

export class ProviderUnavailableError extends DomainError {
  constructor() {
    super('PROVIDER_UNAVAILABLE', 'The provider did not answer');
  }
}
