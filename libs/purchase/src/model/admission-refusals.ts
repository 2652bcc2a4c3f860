import type { DomainErrorCode } from '#common';

/** A refusal of purchase_admit: the JSON detail of its SQLSTATE ZA001 (migration 1763781500000). */
export type AdmissionRefusal =
  | { code: 'IDEMPOTENCY_CONFLICT'; conflict: 'key' | 'reference' }
  | { code: 'PURCHASES_PAUSED'; scope: 'global' | 'vendor' }
  | { code: 'TRANSACTION_MAXIMUM_EXCEEDED'; transaction_max_cents: string }
  | { code: 'VELOCITY_LIMIT_EXCEEDED'; retry_after_seconds: number }
  | { code: 'DAILY_CAP_EXCEEDED'; remaining_cents: string }
  | { code: 'PROVIDER_NOT_CONFIGURED' | 'QUOTE_NOT_FOUND' | 'QUOTE_ALREADY_USED' | 'QUOTE_EXPIRED' | 'SPEND_CONTROLS_NOT_CONFIGURED' | 'PRICING_UNPUBLISHED' | 'VENDOR_NOT_RELEASED' };

/**
 * Every code purchase_admit refuses with, and the declared error code its answer carries. Keyed by
 * `AdmissionRefusal['code']` (`satisfies` refuses a missing or an extra code), so it is the typed list of
 * refusals; test/purchase/admission-refusal-codes checks it against the function's source in the
 * migrated database, because the codes are written there a second time, as SQL strings.
 */
export const ADMISSION_REFUSAL_ERROR_CODES = {
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  PURCHASES_PAUSED: 'PURCHASES_PAUSED',
  TRANSACTION_MAXIMUM_EXCEEDED: 'TRANSACTION_MAXIMUM_EXCEEDED',
  VELOCITY_LIMIT_EXCEEDED: 'VELOCITY_LIMIT_EXCEEDED',
  DAILY_CAP_EXCEEDED: 'DAILY_CAP_EXCEEDED',
  PROVIDER_NOT_CONFIGURED: 'PROVIDER_NOT_CONFIGURED',
  QUOTE_NOT_FOUND: 'VALIDATION_FAILED',
  QUOTE_ALREADY_USED: 'QUOTE_ALREADY_USED',
  QUOTE_EXPIRED: 'QUOTE_EXPIRED',
  SPEND_CONTROLS_NOT_CONFIGURED: 'SPEND_CONTROLS_NOT_CONFIGURED',
  PRICING_UNPUBLISHED: 'PRICING_UNPUBLISHED',
  VENDOR_NOT_RELEASED: 'VENDOR_NOT_RELEASED',
} as const satisfies Record<AdmissionRefusal['code'], DomainErrorCode>;

export type AdmissionRefusalCode = keyof typeof ADMISSION_REFUSAL_ERROR_CODES;
