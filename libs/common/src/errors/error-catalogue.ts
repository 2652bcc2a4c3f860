import { HttpStatus } from '@nestjs/common';

export interface ErrorCatalogueEntry {
  status: HttpStatus;
  /** Fixed, user-safe message (the payout contract requires one message per code). */
  message: string;
}

/** A service's codes, each with its status and message: a code without an entry does not compile. */
export type ErrorCatalogue<C extends string = string> = { readonly [K in C]: ErrorCatalogueEntry };

/** Codes both services share. */
export const COMMON_ERRORS = {
  UNAUTHENTICATED: { status: HttpStatus.UNAUTHORIZED, message: 'Authentication is required.' },
  FORBIDDEN: { status: HttpStatus.FORBIDDEN, message: 'This token or vendor does not have access to this operation.' },
  NOT_FOUND: { status: HttpStatus.NOT_FOUND, message: 'The requested resource was not found.' },
  VALIDATION_FAILED: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'The request is invalid. Correct the reported fields.' },
  PAYLOAD_TOO_LARGE: { status: HttpStatus.PAYLOAD_TOO_LARGE, message: 'The request body is too large.' },
  METHOD_NOT_ALLOWED: { status: HttpStatus.METHOD_NOT_ALLOWED, message: 'This method is not allowed on this path.' },
  UNSUPPORTED_MEDIA_TYPE: { status: HttpStatus.UNSUPPORTED_MEDIA_TYPE, message: 'Send the body as application/json.' },
  SERVICE_UNAVAILABLE: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'The service is temporarily unavailable. Retry later.' },
  INTERNAL_ERROR: { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'An unexpected error occurred.' },
} as const satisfies ErrorCatalogue;

export type CommonErrorCode = keyof typeof COMMON_ERRORS;

/**
 * Every code some catalogue declares. Each domain lib adds its catalogue's codes next to the
 * catalogue (`declare module '#common' { interface ErrorCodeRegistry extends Record<PurchaseErrorCode, true> {} }`),
 * so a DomainError can only carry a code that has a status and a message somewhere.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ErrorCodeRegistry extends Record<CommonErrorCode, true> {}

/** A code some catalogue declares: it has an HTTP status and a message. */
export type ErrorCode = keyof ErrorCodeRegistry & string;

/**
 * Codes of errors their callers translate before anything is answered (a day that does not parse
 * becomes a field's validation message): no catalogue has them, so one reaching the exception
 * filter is a bug and answers 500.
 */
export type InternalErrorCode = 'INVALID_ISO_DAY' | 'INVALID_DATE';

export type DomainErrorCode = ErrorCode | InternalErrorCode;

/**
 * A catalogue whose message is the code itself (the purchase contract answers its codes as their
 * messages), written as code → status so that no code is spelled twice.
 */
export function codesAsMessages<const Statuses extends Record<string, HttpStatus>>(statuses: Statuses): { readonly [C in keyof Statuses & string]: { readonly status: Statuses[C]; readonly message: C } } {
  return Object.fromEntries(Object.entries(statuses).map(([code, status]) => [code, { status, message: code }])) as never;
}
