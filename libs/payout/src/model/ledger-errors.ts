import { DomainError } from '#common';

export class InsufficientFundsError extends DomainError {
  constructor() {
    super('INSUFFICIENT_FUNDS', 'The account balance does not cover the amount plus fee');
  }
}

/** A settle/release/reverse that the balances cannot carry: a bug, never a vendor error. */
export class LedgerInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerInvariantError';
  }
}
