export {
  AuthenticationError,
  ConflictError,
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayTimeoutError,
  IdempotencyConflictError,
  NotFoundError,
  PermissionError,
  ProviderError,
  RateLimitError,
  ServerError,
  ValidationError,
  WaitTimeoutError,
  type ResponseMeta,
} from './errors.js';
export { DEFAULT_TIMEOUT_MS, type ClientOptions, type RequestOptions, type RetryEvent, type RetryOptions } from './transport.js';
export { eachItem, paginate, paginateCursor, type CursorPage, type ApiPromise, type AutoPaginated, type Page, type WaitOptions, type WithResponse } from './core.js';
export * from './purchase-client.js';
export * from './payout-client.js';
export * from './webhooks.js';
export type * as purchaseApi from './generated/purchase.js';
export type * as payoutApi from './generated/payout.js';
