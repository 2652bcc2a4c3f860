import { HttpStatus } from '@nestjs/common';
import type { ErrorCatalogue } from '#common';

/** Stable codes of the purchase contract (purchase-gateway.md, Errors) with their HTTP status. */
export const PURCHASE_ERRORS = {
  DAILY_CAP_EXCEEDED: { status: HttpStatus.CONFLICT, message: 'DAILY_CAP_EXCEEDED' },
  TRANSACTION_MAXIMUM_EXCEEDED: { status: HttpStatus.CONFLICT, message: 'TRANSACTION_MAXIMUM_EXCEEDED' },
  PURCHASES_PAUSED: { status: HttpStatus.CONFLICT, message: 'PURCHASES_PAUSED' },
  SPEND_CONTROLS_NOT_CONFIGURED: { status: HttpStatus.CONFLICT, message: 'SPEND_CONTROLS_NOT_CONFIGURED' },
  PRICING_UNPUBLISHED: { status: HttpStatus.CONFLICT, message: 'PRICING_UNPUBLISHED' },
  VENDOR_NOT_RELEASED: { status: HttpStatus.CONFLICT, message: 'VENDOR_NOT_RELEASED' },
  VELOCITY_LIMIT_EXCEEDED: { status: HttpStatus.TOO_MANY_REQUESTS, message: 'VELOCITY_LIMIT_EXCEEDED' },
  API_RATE_LIMITED: { status: HttpStatus.TOO_MANY_REQUESTS, message: 'API_RATE_LIMITED' },
  IDEMPOTENCY_CONFLICT: { status: HttpStatus.CONFLICT, message: 'IDEMPOTENCY_CONFLICT' },
  QUOTE_ALREADY_USED: { status: HttpStatus.CONFLICT, message: 'QUOTE_ALREADY_USED' },
  QUOTE_EXPIRED: { status: HttpStatus.CONFLICT, message: 'QUOTE_EXPIRED' },
  PRODUCT_UNAVAILABLE: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'PRODUCT_UNAVAILABLE' },
  DESTINATION_AMOUNT_INVALID: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'DESTINATION_AMOUNT_INVALID' },
  BUDGET_INSUFFICIENT: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'BUDGET_INSUFFICIENT' },
  PROVIDER_NOT_CONFIGURED: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'PROVIDER_NOT_CONFIGURED' },
  PROVIDER_HTTP_ERROR: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'PROVIDER_HTTP_ERROR' },
  PROVIDER_OUTCOME_UNKNOWN: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'PROVIDER_OUTCOME_UNKNOWN' },
} as const satisfies ErrorCatalogue;

export type PurchaseErrorCode = keyof typeof PURCHASE_ERRORS;

// Registers the codes so a DomainError may carry them (see ErrorCodeRegistry).
declare module '#common' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ErrorCodeRegistry extends Record<PurchaseErrorCode, true> {}
}
