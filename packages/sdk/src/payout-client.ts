import { paginateCursor, pollUntil, type ApiPromise, type AutoPaginated, type WaitOptions } from './core.js';
import { GatewayApiError } from './errors.js';
import type { components, operations } from './generated/payout.js';
import type { BodyOf, ErrorBodies, PayoutCodeOf, QueryOf } from './operation-types.js';
import { GatewayClient } from './gateway-client.js';
import type { ClientOptions, RequestOptions } from './transport.js';

type Schemas = components['schemas'];
export type Account = Schemas['Account'];
export type Method = Schemas['Method'];
export type Payout = Schemas['Payout'];
export type PayoutStatus = Payout['status'];
export type PayoutRequest = Schemas['PayoutRequest'];
export type Batch = Schemas['Batch'];
export type BatchStatus = Batch['status'];
export type BatchRequest = Schemas['BatchRequest'];
export type Delivery = Schemas['Delivery'];
export type PayoutValidation = Schemas['PayoutValidation'];
export type BatchValidation = Schemas['BatchValidation'];
/** Every code the payout gateway can answer; each operation's codes are in the generated types. */
export type PayoutErrorCode = Schemas['ErrorEnvelope']['code'];
export type PayoutWebhookEndpoint = Schemas['WebhookEndpoint'];
export type PayoutWebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type PayoutWebhookDelivery = Schemas['WebhookDelivery'];
export type StatementLine = Schemas['StatementLine'];
export type StatementSummary = Schemas['StatementSummary'];
export type BatchSummary = Schemas['BatchSummary'];
type QueryWithoutCursor<Op extends PayoutOperation> = Omit<NonNullable<QueryOf<operations[Op]>>, 'cursor'>;

/** Every operation of the payout gateway (its `operationId`). */
export type PayoutOperation = keyof operations;
/** The request body of a payout operation, e.g. `PayoutBody<'createWebhookEndpoint'>`. */
export type PayoutBody<Op extends PayoutOperation> = BodyOf<operations[Op]>;
/** The codes each payout operation can answer, e.g. `PayoutErrorCodes['createPayout']`. */
export type PayoutErrorCodes = { [Op in PayoutOperation]: PayoutCodeOf<ErrorBodies<operations[Op]>> };

/**
 * Narrows a caught error to the payout operation's `GatewayApiError`, whose `code` is the union
 * of the codes that operation can answer: comparing it with a code it cannot answer (or a typo)
 * does not compile. Without `operation`, any payout code.
 */
export function isPayoutError<Op extends PayoutOperation>(error: unknown, operation: Op): error is GatewayApiError<PayoutErrorCodes[Op]>;
export function isPayoutError(error: unknown): error is GatewayApiError<PayoutErrorCode>;
export function isPayoutError(error: unknown, operation?: string): boolean {
  return error instanceof GatewayApiError && (operation === undefined || error.operation === operation);
}

/**
 * `paid` can still become `reversed` within 2 h (the reversal window). `needs_review` is not
 * final: operations resolve it, so the wait helpers keep polling it.
 */
export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['paid', 'failed', 'reversed', 'cancelled'];
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['completed', 'completed_with_failures', 'cancelled'];

/**
 * POSTs the client may send again after a 5xx or a network error: the payout contract's reference
 * is the idempotency key of the two writes (the same body answers the stored result), and their
 * dry runs write nothing at all.
 */
const REFERENCE_KEYED_PATHS = ['/api/v1/payouts', '/api/v1/batches', '/api/v1/payouts/validate', '/api/v1/batches/validate'];

/** The contract's payout cadence: 5 s, doubling up to 5 minutes; default timeout 10 minutes. */
const PAYOUT_CADENCE = { timeoutMs: 600_000, intervalMs: 5_000, maxIntervalMs: 300_000 };

/** The payout gateway: one method per operation of its document. */
export class PayoutClient extends GatewayClient<operations> {
  constructor(options: ClientOptions) {
    super(options, 'origin', REFERENCE_KEYED_PATHS, '/api/v1');
  }

  /** `GET /api/v1/account`: the prefunded balance. */
  getAccount(options?: RequestOptions): ApiPromise<Account> {
    return this.run('getAccount', 'GET', '/api/v1/account', {}, options);
  }

  /** `GET /api/v1/methods`: the enabled methods and their fees. */
  listMethods(options?: RequestOptions): ApiPromise<Method[]> {
    return this.run('listMethods', 'GET', '/api/v1/methods', {}, options);
  }

  /**
   * `POST /api/v1/payouts`: pays once per `reference`; sending the same body again answers the
   * stored result (`replayed`). A provider refusal throws ProviderError `PROVIDER_REJECTED` (422), on
   * a replay too: the payout exists as `failed` (`provider_rejected`) with its hold released.
   */
  createPayout(body: PayoutRequest, options?: RequestOptions): ApiPromise<{ payout: Payout; replayed: boolean }> {
    return this.run('createPayout', 'POST', '/api/v1/payouts', { body }, options, (payout, response) => ({
      payout,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    }));
  }

  /**
   * `POST /api/v1/payouts/validate`: a dry run of createPayout with the same body. Answers what the
   * real call would do (`outcome` `create` or `replay`, fee, hold) or throws the error the real call
   * would; writes, reserves and submits nothing (a rate bucket of its own).
   */
  validatePayout(body: PayoutRequest, options?: RequestOptions): ApiPromise<PayoutValidation> {
    return this.run('validatePayout', 'POST', '/api/v1/payouts/validate', { body }, options);
  }

  /** `GET /api/v1/payouts/{reference}`. */
  getPayout(reference: string, options?: RequestOptions): ApiPromise<Payout> {
    return this.run('getPayout', 'GET', '/api/v1/payouts/{reference}', { params: { path: { reference } } }, options);
  }

  /** `GET /api/v1/payouts/{reference}/delivery`: the PIN and instructions of a cash payout (needs `payouts:delivery`; audited). */
  getDelivery(reference: string, options?: RequestOptions): ApiPromise<Delivery> {
    return this.run('getDelivery', 'GET', '/api/v1/payouts/{reference}/delivery', { params: { path: { reference } } }, options);
  }

  /** `POST /api/v1/payouts/{reference}/resend-sms`: sends the recipient's SMS again (cooldown: `RATE_LIMITED`). */
  resendSms(reference: string, options?: RequestOptions) {
    return this.run('resendSms', 'POST', '/api/v1/payouts/{reference}/resend-sms', { params: { path: { reference } } }, options);
  }

  /** Polls a payout until `paid`, `failed`, `reversed` or `cancelled` (`needs_review` is not final). */
  async waitForFinal(reference: string, options: WaitOptions = {}): Promise<Payout> {
    return pollUntil(() => this.getPayout(reference, { signal: options.signal }), (payout) => FINAL_PAYOUT_STATUSES.includes(payout.status), options, PAYOUT_CADENCE);
  }

  /** `POST /api/v1/batches`: accepts a batch once per `reference` (202 `processing`); its items are paid in the background. */
  createBatch(body: BatchRequest, options?: RequestOptions): ApiPromise<{ batch: Batch; replayed: boolean }> {
    return this.run('createBatch', 'POST', '/api/v1/batches', { body }, options, (batch, response) => ({
      batch,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    }));
  }

  /**
   * `POST /api/v1/batches/validate`: a dry run of createBatch with the same body. Answers what the
   * real call would do (`outcome` `create` or `replay`, totals, and each item's fee and hold) or
   * throws the error the real call would (item problems keyed `payouts.{index}.{field}`); writes,
   * reserves, queues and submits nothing (a rate bucket of its own).
   */
  validateBatch(body: BatchRequest, options?: RequestOptions): ApiPromise<BatchValidation> {
    return this.run('validateBatch', 'POST', '/api/v1/batches/validate', { body }, options);
  }

  /** `GET /api/v1/batches/{reference}`. */
  getBatch(reference: string, options?: RequestOptions): ApiPromise<Batch> {
    return this.run('getBatch', 'GET', '/api/v1/batches/{reference}', { params: { path: { reference } } }, options);
  }

  /** Polls a batch until `completed`, `completed_with_failures` or `cancelled`. */
  async waitForBatch(reference: string, options: WaitOptions = {}): Promise<Batch> {
    return pollUntil(() => this.getBatch(reference, { signal: options.signal }), (batch) => FINAL_BATCH_STATUSES.includes(batch.status), options, PAYOUT_CADENCE);
  }

  /** `GET /api/v1/statement`: every line of the account statement for the days, newest first (or `order: 'asc'`), page after page. */
  listStatement(query: QueryWithoutCursor<'getStatement'> = {}, options?: RequestOptions): AutoPaginated<StatementLine> {
    return paginateCursor((cursor) => this.run('getStatement', 'GET', '/api/v1/statement', { params: { query: { ...query, cursor } } }, options));
  }

  /** `GET /api/v1/statement/summary`: opening, closing and the totals per category for the days. */
  getStatementSummary(query: NonNullable<QueryOf<operations['getStatementSummary']>> = {}, options?: RequestOptions): ApiPromise<StatementSummary> {
    return this.run('getStatementSummary', 'GET', '/api/v1/statement/summary', { params: { query } }, options);
  }

  /** `GET /api/v1/payouts`: the payouts matching the filters, newest first, page after page (never delivery codes). */
  listPayouts(query: QueryWithoutCursor<'listPayouts'> = {}, options?: RequestOptions): AutoPaginated<Payout> {
    return paginateCursor((cursor) => this.run('listPayouts', 'GET', '/api/v1/payouts', { params: { query: { ...query, cursor } } }, options));
  }

  /** `GET /api/v1/batches`: the batches (without items), newest first, page after page. */
  listBatches(query: QueryWithoutCursor<'listBatches'> = {}, options?: RequestOptions): AutoPaginated<BatchSummary> {
    return paginateCursor((cursor) => this.run('listBatches', 'GET', '/api/v1/batches', { params: { query: { ...query, cursor } } }, options));
  }

  /** `POST /api/v1/webhook-endpoints/{id}/events/{eventId}/redeliver`: delivers the event again. */
  redeliverWebhookEvent(id: string, eventId: string, options?: RequestOptions): ApiPromise<PayoutWebhookDelivery> {
    return this.run('redeliverWebhookEvent', 'POST', '/api/v1/webhook-endpoints/{id}/events/{eventId}/redeliver', { params: { path: { id, eventId } } }, options);
  }
}
