import type { DomainErrorCode, ErrorCode } from './error-catalogue.js';

/**
 * Base of every error a vendor may see. The code is stable API; each service's exception
 * filter maps codes to an HTTP status and its own envelope, so services never pick statuses
 * or build error bodies by hand. The code is typed: one no catalogue declares does not compile.
 */
export class DomainError<C extends DomainErrorCode = DomainErrorCode> extends Error {
  constructor(
    readonly code: C,
    message: string = code,
    /** Extra fields the envelope carries next to the code (e.g. remaining_minor). */
    readonly details: Record<string, unknown> = {},
    /** Per-field messages, keyed by field path such as `recipient.id_number`. */
    readonly fieldErrors: Record<string, string[]> = {},
    /** Seconds for the Retry-After header on 429 answers. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationFailedError extends DomainError {
  constructor(fieldErrors: Record<string, string[]>) {
    super('VALIDATION_FAILED', 'The request is invalid', {}, fieldErrors);
  }
}

export class NotFoundError extends DomainError {
  constructor(what = 'resource') {
    super('NOT_FOUND', `${what} not found`);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor() {
    super('UNAUTHENTICATED', 'A valid bearer token is required');
  }
}

export class ForbiddenError extends DomainError {
  constructor(readonly missing: string[] = []) {
    super('FORBIDDEN', 'The token or vendor lacks the required access');
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor() {
    super('PAYLOAD_TOO_LARGE', 'The request body is too large');
  }
}

export class RateLimitedError extends DomainError {
  constructor(code: ErrorCode, retryAfterSeconds: number) {
    super(code, code, {}, {}, retryAfterSeconds);
  }
}

/**
 * A dependency every request needs (e.g. the rate limiter's Redis) cannot answer: 503
 * `SERVICE_UNAVAILABLE` in the service's envelope, with Retry-After. Nothing was done.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super('SERVICE_UNAVAILABLE', 'A dependency of the service is unavailable', {}, {}, retryAfterSeconds);
  }
}
