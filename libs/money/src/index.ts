// The public surface: every export of these modules (the exact-decimal and plain-decimal helpers stay internal).
export * from './money.errors.js';
export * from './cents.js';
export * from './decimal-amount.js';
export * from './ranged-pricing.js';
export type { RoundingMode } from './exact-decimal.js';
