import { paginate, pollUntil, type ApiPromise, type AutoPaginated, type WaitOptions } from './core.js';
import { GatewayApiError } from './errors.js';
import type { components, operations } from './generated/purchase.js';
import type { BodyOf, ErrorBodies, PurchaseCodeOf, QueryOf } from './operation-types.js';
import { GatewayClient } from './gateway-client.js';
import type { ClientOptions, RequestOptions } from './transport.js';

type Schemas = components['schemas'];
export type Transaction = Schemas['Transaction'];
export type TransactionStatus = Transaction['status'];
export type Quote = Schemas['Quote'];
export type QuoteRequest = operations['createQuote']['requestBody']['content']['application/json'];
export type CreateTransactionRequest = Schemas['CreateTransactionRequest'];
export type TransactionValidation = Schemas['TransactionValidation'];
export type Product = Schemas['Product'];
export type Fulfilment = Schemas['Fulfilment'];
export type Limits = Schemas['Limits'];
/** Every code the purchase gateway can answer; each operation's codes are in the generated types. */
export type PurchaseErrorCode = Schemas['ErrorDetail']['code'];
export type TransactionQuery = QueryOf<operations['listTransactions']>;
export type ProductQuery = QueryOf<operations['listProducts']>;
export type PurchaseStatementRow = Schemas['PurchaseStatementRow'];
export type PurchaseStatementQuery = QueryOf<operations['getPurchaseStatement']>;
export type Service = Schemas['Service'];
export type Country = Schemas['Country'];
export type Operator = Schemas['Operator'];
export type SalesSummary = Schemas['SalesSummary'];
export type PurchaseWebhookEndpoint = Schemas['WebhookEndpoint'];
export type PurchaseWebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type PurchaseWebhookDelivery = Schemas['WebhookDelivery'];

/** Every operation of the purchase gateway (its `operationId`). */
export type PurchaseOperation = keyof operations;
/** The request body of a purchase operation, e.g. `PurchaseBody<'lookupAccount'>`. */
export type PurchaseBody<Op extends PurchaseOperation> = BodyOf<operations[Op]>;
/** The codes each purchase operation can answer, e.g. `PurchaseErrorCodes['createTransaction']`. */
export type PurchaseErrorCodes = { [Op in PurchaseOperation]: PurchaseCodeOf<ErrorBodies<operations[Op]>> };

/**
 * Narrows a caught error to the purchase operation's `GatewayApiError`, whose `code` is the union
 * of the codes that operation can answer: comparing it with a code it cannot answer (or a typo)
 * does not compile. Without `operation`, any purchase code.
 */
export function isPurchaseError<Op extends PurchaseOperation>(error: unknown, operation: Op): error is GatewayApiError<PurchaseErrorCodes[Op]>;
export function isPurchaseError(error: unknown): error is GatewayApiError<PurchaseErrorCode>;
export function isPurchaseError(error: unknown, operation?: string): boolean {
  return error instanceof GatewayApiError && (operation === undefined || error.operation === operation);
}

/**
 * Statuses no later read changes on its own account. `completed` can still become `reversed`
 * within 24 h (the reversal window), and `review` is not final: the outcome is unknown and
 * staff resolve it to `completed` or `failed`, so waitForFinal keeps polling it.
 */
export const FINAL_TRANSACTION_STATUSES: readonly TransactionStatus[] = ['completed', 'failed', 'reversed'];

export interface CreatedTransaction {
  transaction: Transaction;
  /** The key sent: keep it with your order to retry the same purchase later without buying twice. */
  idempotencyKey: string;
  /** True when the gateway answered with an earlier purchase for the same key (`Idempotent-Replayed`). */
  replayed: boolean;
}

/** The purchase gateway: one method per operation of its document. */
export class PurchaseClient extends GatewayClient<operations> {
  constructor(options: ClientOptions) {
    super(options, 'versioned', [], '');
  }

  // Catalogue

  /** `GET /services`. */
  listServices(options?: RequestOptions): ApiPromise<Service[]> {
    return this.run('listServices', 'GET', '/services', {}, options);
  }

  /** `GET /countries`. */
  listCountries(options?: RequestOptions): ApiPromise<Country[]> {
    return this.run('listCountries', 'GET', '/countries', {}, options);
  }

  /** `GET /operators`. */
  listOperators(options?: RequestOptions): ApiPromise<Operator[]> {
    return this.run('listOperators', 'GET', '/operators', {}, options);
  }

  /** `GET /products`: every enabled product matching `query`, page after page (async iterator). */
  listProducts(query: Omit<ProductQuery, 'page'> = {}, options?: RequestOptions): AutoPaginated<Product> {
    return paginate((page) => this.run('listProducts', 'GET', '/products', { params: { query: { ...query, page } } }, options));
  }

  /** `GET /products/{id}`. */
  getProduct(id: operations['getProduct']['parameters']['path']['id'], options?: RequestOptions): ApiPromise<Product> {
    return this.run('getProduct', 'GET', '/products/{id}', { params: { path: { id } } }, options);
  }

  // Lookups (POST: never resent after a 5xx unless you give an idempotencyKey)

  /** `POST /lookups/mobile-number`: the operators (and products) of a number, one page (`page`/`per_page` in the body). */
  lookupMobileNumber(body: PurchaseBody<'lookupMobileNumber'>, options?: RequestOptions) {
    return this.run('lookupMobileNumber', 'POST', '/lookups/mobile-number', { body }, options);
  }

  /** `POST /lookups/statement`. */
  lookupStatement(body: PurchaseBody<'lookupStatement'>, options?: RequestOptions) {
    return this.run('lookupStatement', 'POST', '/lookups/statement', { body }, options);
  }

  /** `POST /lookups/account`. */
  lookupAccount(body: PurchaseBody<'lookupAccount'>, options?: RequestOptions) {
    return this.run('lookupAccount', 'POST', '/lookups/account', { body }, options);
  }

  /** `POST /lookups/esim-benefits`. */
  lookupEsimBenefits(body: PurchaseBody<'lookupEsimBenefits'>, options?: RequestOptions) {
    return this.run('lookupEsimBenefits', 'POST', '/lookups/esim-benefits', { body }, options);
  }

  /** `POST /lookups/esim-status`. */
  lookupEsimStatus(body: PurchaseBody<'lookupEsimStatus'>, options?: RequestOptions) {
    return this.run('lookupEsimStatus', 'POST', '/lookups/esim-status', { body }, options);
  }

  // Quotes and purchases

  /** `POST /quotes`: prices a product. */
  createQuote(body: QuoteRequest, options?: RequestOptions): ApiPromise<Quote> {
    return this.run('createQuote', 'POST', '/quotes', { body }, options);
  }

  /** `GET /quotes/{id}`. */
  getQuote(id: string, options?: RequestOptions): ApiPromise<Quote> {
    return this.run('getQuote', 'GET', '/quotes/{id}', { params: { path: { id } } }, options);
  }

  /**
   * `POST /transactions`: buys once. An `Idempotency-Key` (a UUID) is created unless given
   * (`options.idempotencyKey`); the same key with the same quote and reference answers the same
   * transaction, which is what makes retrying safe.
   */
  createTransaction(body: CreateTransactionRequest, options: RequestOptions = {}): ApiPromise<CreatedTransaction> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return this.run(
      'createTransaction',
      'POST',
      '/transactions',
      { params: { header: { 'Idempotency-Key': idempotencyKey } }, body },
      { ...options, idempotencyKey },
      (transaction, response) => ({ transaction, idempotencyKey, replayed: response.headers.get('idempotent-replayed') === 'true' }),
    );
  }

  /**
   * `POST /transactions/validate`: a dry run of createTransaction with the same body and the
   * `Idempotency-Key` you will buy with (`options.idempotencyKey`, required: the key is part of
   * what is checked). Answers what the real call would do (`outcome` `create`, with the allowance
   * and velocity left, or `replay`, with the transaction it would answer) or throws the error the
   * real call would; stores, counts and submits nothing (a rate bucket of its own).
   */
  validateTransaction(body: CreateTransactionRequest, options: RequestOptions & { idempotencyKey: string }): ApiPromise<TransactionValidation> {
    return this.run('validateTransaction', 'POST', '/transactions/validate', { params: { header: { 'Idempotency-Key': options.idempotencyKey } }, body }, options);
  }

  /** `GET /transactions/{id}`. */
  getTransaction(id: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this.run('getTransaction', 'GET', '/transactions/{id}', { params: { path: { id } } }, options);
  }

  /** `GET /transactions/by-reference/{reference}`. */
  getTransactionByReference(reference: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this.run('getTransactionByReference', 'GET', '/transactions/by-reference/{reference}', { params: { path: { reference } } }, options);
  }

  /** `GET /transactions`: every transaction matching `query`, page after page (newest first). */
  listTransactions(query: Omit<TransactionQuery, 'page'> = {}, options?: RequestOptions): AutoPaginated<Transaction> {
    return paginate((page) => this.run('listTransactions', 'GET', '/transactions', { params: { query: { ...query, page } } }, options));
  }

  /** `GET /reports/statement`: charged, reversed and net per day (or month), product and operator, every row page after page. */
  listPurchaseStatement(query: Omit<PurchaseStatementQuery, 'page'> = {}, options?: RequestOptions): AutoPaginated<PurchaseStatementRow> {
    return paginate((page) => this.run('getPurchaseStatement', 'GET', '/reports/statement', { params: { query: { ...query, page } } }, options));
  }

  /** `GET /transactions/{id}/fulfilment`: the PIN or eSIM data of a completed purchase (needs `fulfilment:read`; audited). */
  getFulfilment(id: string, options?: RequestOptions): ApiPromise<Fulfilment> {
    return this.run('getTransactionFulfilment', 'GET', '/transactions/{id}/fulfilment', { params: { path: { id } } }, options);
  }

  /** `GET /limits`: the daily allowance and limits. */
  getLimits(options?: RequestOptions): ApiPromise<Limits> {
    return this.run('getLimits', 'GET', '/limits', {}, options);
  }

  /** `GET /reports/summary`: sales between two dates. */
  getSalesSummary(query: QueryOf<operations['getSalesSummary']> = {}, options?: RequestOptions): ApiPromise<SalesSummary> {
    return this.run('getSalesSummary', 'GET', '/reports/summary', { params: { query } }, options);
  }

  /**
   * Polls `GET /transactions/{id}` until `completed`, `failed` or `reversed`, on the contract's
   * cadence (2 s, doubling up to 60 s; default timeout 5 minutes). `review` is not final: it
   * throws WaitTimeoutError at the deadline with the last transaction in `last`.
   */
  async waitForFinal(id: string, options: WaitOptions = {}): Promise<Transaction> {
    return pollUntil(() => this.getTransaction(id, { signal: options.signal }), (transaction) => FINAL_TRANSACTION_STATUSES.includes(transaction.status), options, {
      timeoutMs: 300_000,
      intervalMs: 2_000,
      maxIntervalMs: 60_000,
    });
  }

  /** @deprecated use listTransactions (same iterator). */
  transactions(query: Omit<TransactionQuery, 'page'> = {}): AutoPaginated<Transaction> {
    return this.listTransactions(query);
  }

  /** @deprecated use listProducts (same iterator). */
  products(query: Omit<ProductQuery, 'page'> = {}): AutoPaginated<Product> {
    return this.listProducts(query);
  }

  /** `POST /webhook-endpoints/{id}/events/{eventId}/redeliver`: delivers the event again (a new log entry). */
  redeliverWebhookEvent(id: string, eventId: string, options?: RequestOptions): ApiPromise<PurchaseWebhookDelivery> {
    return this.run('redeliverWebhookEvent', 'POST', '/webhook-endpoints/{id}/events/{eventId}/redeliver', { params: { path: { id, eventId } } }, options);
  }
}
