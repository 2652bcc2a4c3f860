import { DomainError } from '../errors/domain-error.js';

/** Not a real YYYY-MM-DD calendar day; callers report it as a field validation failure. */
export class InvalidIsoDayError extends DomainError {
  constructor(readonly input: unknown) {
    super('INVALID_ISO_DAY', 'day must be a real calendar date as YYYY-MM-DD');
  }
}

/** An invalid Date (NaN time) or one outside the four-digit years we print. */
export class InvalidDateError extends DomainError {
  constructor() {
    super('INVALID_DATE', 'date must be a valid instant between years 1000 and 9999');
  }
}
