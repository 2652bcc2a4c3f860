import { DomainError } from '#common';

export class PurchasesPausedError extends DomainError {
  constructor(readonly scope: 'global' | 'vendor') {
    super('PURCHASES_PAUSED', 'Purchases are paused');
  }
}

export class SpendControlsNotConfiguredError extends DomainError {
  constructor() {
    super('SPEND_CONTROLS_NOT_CONFIGURED', 'Spend controls are not configured for this vendor');
  }
}

export class VendorNotReleasedError extends DomainError {
  constructor() {
    super('VENDOR_NOT_RELEASED', 'The vendor is not yet accepted for production purchases');
  }
}

export class TransactionMaximumExceededError extends DomainError {
  constructor(transactionMaxMinor: number) {
    super('TRANSACTION_MAXIMUM_EXCEEDED', 'The charge exceeds the maximum per transaction', { transaction_max_minor: transactionMaxMinor });
  }
}

export class DailyCapExceededError extends DomainError {
  constructor(remainingMinor: number) {
    super('DAILY_CAP_EXCEEDED', 'The charge exceeds the remaining daily allowance', { remaining_minor: remainingMinor });
  }
}

export class VelocityLimitExceededError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super('VELOCITY_LIMIT_EXCEEDED', 'Too many purchases in the velocity window', {}, {}, retryAfterSeconds);
  }
}
