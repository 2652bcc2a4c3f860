import { DomainError } from '#common';

/** The key was used with another quote or reference, or the reference with another key. */
export class IdempotencyConflictError extends DomainError {
  constructor(message: string) {
    super('IDEMPOTENCY_CONFLICT', message);
  }
}
