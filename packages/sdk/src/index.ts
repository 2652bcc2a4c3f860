export { GatewayApiError, WaitTimeoutError } from './errors.js';
export type { ClientOptions, RetryEvent, RetryOptions } from './transport.js';
export { eachItem, type Page, type WaitOptions } from './core.js';
export * from './purchase-client.js';
export * from './payout-client.js';
export type * as purchaseApi from './generated/purchase.js';
export type * as payoutApi from './generated/payout.js';
