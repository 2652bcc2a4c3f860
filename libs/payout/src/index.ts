export * from './payout-errors.js';
export * from './validation/rsa-id-number.js';
