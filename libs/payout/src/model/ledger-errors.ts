import { DomainError } from '#common';

export class InsufficientFundsError extends DomainError {
  constructor() {
    super('INSUFFICIENT_FUNDS', 'The account balance does not cover the amount plus fee');
  }
}

/**
 * New payouts and batches are refused while the account is in debt (a payout we had released was
 * proved paid after all, and its re-debit took `available` below zero), until funding covers it.
 */
export class AccountInDebtError extends DomainError {
  constructor(debt: string) {
    super('ACCOUNT_IN_DEBT', `The account is in debt (${debt}); fund it before new payouts`, { debt });
  }
}

/** A settle/release/reverse that the balances cannot carry: a bug, never a vendor error. */
export class LedgerInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerInvariantError';
  }
}
