import type { Client } from 'openapi-fetch';
import { Caller, createApi, paginate, pollUntil, type ApiPromise, type AutoPaginated, type WaitOptions } from './core.js';
import { GatewayApiError } from './errors.js';
import type { components, operations, paths } from './generated/purchase.js';
import type { BodyOf, ErrorBodies, PurchaseCodeOf, QueryOf } from './operation-types.js';
import type { ClientOptions, RequestOptions } from './transport.js';

type Schemas = components['schemas'];
export type Transaction = Schemas['Transaction'];
export type TransactionStatus = Transaction['status'];
export type Quote = Schemas['Quote'];
export type QuoteRequest = operations['createQuote']['requestBody']['content']['application/json'];
export type CreateTransactionRequest = Schemas['CreateTransactionRequest'];
export type Product = Schemas['Product'];
export type Fulfilment = Schemas['Fulfilment'];
export type Limits = Schemas['Limits'];
/** Every code the purchase gateway can answer; each operation's codes are in the generated types. */
export type PurchaseErrorCode = Schemas['ErrorDetail']['code'];
export type TransactionQuery = QueryOf<operations['listTransactions']>;
export type ProductQuery = QueryOf<operations['listProducts']>;
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

/** The purchase gateway: one method per operation of its document, and `api` for raw typed calls. */
export class PurchaseClient {
  /** The generated openapi-fetch client (bearer auth and retries included) for raw typed calls. */
  readonly api: Client<paths>;
  private readonly caller: Caller;

  constructor(options: ClientOptions) {
    this.api = createApi<paths>(options, 'versioned');
    this.caller = new Caller(options, []);
  }

  // Catalogue

  /** `GET /services`. */
  listServices(options?: RequestOptions): ApiPromise<Service[]> {
    return this.caller.call('listServices', (init) => this.api.GET('/services', init), options);
  }

  /** `GET /countries`. */
  listCountries(options?: RequestOptions): ApiPromise<Country[]> {
    return this.caller.call('listCountries', (init) => this.api.GET('/countries', init), options);
  }

  /** `GET /operators`. */
  listOperators(options?: RequestOptions): ApiPromise<Operator[]> {
    return this.caller.call('listOperators', (init) => this.api.GET('/operators', init), options);
  }

  /** `GET /products`: every enabled product matching `query`, page after page (async iterator). */
  listProducts(query: Omit<ProductQuery, 'page'> = {}, options?: RequestOptions): AutoPaginated<Product> {
    return paginate((page) => this.caller.call('listProducts', (init) => this.api.GET('/products', { ...init, params: { query: { ...query, page } } }), options));
  }

  /** `GET /products/{id}`. */
  getProduct(id: operations['getProduct']['parameters']['path']['id'], options?: RequestOptions): ApiPromise<Product> {
    return this.caller.call('getProduct', (init) => this.api.GET('/products/{id}', { ...init, params: { path: { id } } }), options);
  }

  // Lookups (POST: never resent after a 5xx unless you give an idempotencyKey)

  /** `POST /lookups/mobile-number`: the operators (and products) of a number, one page (`page`/`per_page` in the body). */
  lookupMobileNumber(body: PurchaseBody<'lookupMobileNumber'>, options?: RequestOptions) {
    return this.caller.call('lookupMobileNumber', (init) => this.api.POST('/lookups/mobile-number', { ...init, body }), options);
  }

  /** `POST /lookups/statement`. */
  lookupStatement(body: PurchaseBody<'lookupStatement'>, options?: RequestOptions) {
    return this.caller.call('lookupStatement', (init) => this.api.POST('/lookups/statement', { ...init, body }), options);
  }

  /** `POST /lookups/account`. */
  lookupAccount(body: PurchaseBody<'lookupAccount'>, options?: RequestOptions) {
    return this.caller.call('lookupAccount', (init) => this.api.POST('/lookups/account', { ...init, body }), options);
  }

  /** `POST /lookups/esim-benefits`. */
  lookupEsimBenefits(body: PurchaseBody<'lookupEsimBenefits'>, options?: RequestOptions) {
    return this.caller.call('lookupEsimBenefits', (init) => this.api.POST('/lookups/esim-benefits', { ...init, body }), options);
  }

  /** `POST /lookups/esim-status`. */
  lookupEsimStatus(body: PurchaseBody<'lookupEsimStatus'>, options?: RequestOptions) {
    return this.caller.call('lookupEsimStatus', (init) => this.api.POST('/lookups/esim-status', { ...init, body }), options);
  }

  // Quotes and purchases

  /** `POST /quotes`: prices a product. */
  createQuote(body: QuoteRequest, options?: RequestOptions): ApiPromise<Quote> {
    return this.caller.call('createQuote', (init) => this.api.POST('/quotes', { ...init, body }), options);
  }

  /** `GET /quotes/{id}`. */
  getQuote(id: string, options?: RequestOptions): ApiPromise<Quote> {
    return this.caller.call('getQuote', (init) => this.api.GET('/quotes/{id}', { ...init, params: { path: { id } } }), options);
  }

  /**
   * `POST /transactions`: buys once. An `Idempotency-Key` (a UUID) is created unless given
   * (`options.idempotencyKey`); the same key with the same quote and reference answers the same
   * transaction, which is what makes retrying safe.
   */
  createTransaction(body: CreateTransactionRequest, options: RequestOptions = {}): ApiPromise<CreatedTransaction> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return this.caller.call(
      'createTransaction',
      (init) => this.api.POST('/transactions', { ...init, params: { header: { 'Idempotency-Key': idempotencyKey } }, body }),
      { ...options, idempotencyKey },
      (transaction, response) => ({ transaction, idempotencyKey, replayed: response.headers.get('idempotent-replayed') === 'true' }),
    );
  }

  /** `GET /transactions/{id}`. */
  getTransaction(id: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this.caller.call('getTransaction', (init) => this.api.GET('/transactions/{id}', { ...init, params: { path: { id } } }), options);
  }

  /** `GET /transactions/by-reference/{reference}`. */
  getTransactionByReference(reference: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this.caller.call('getTransactionByReference', (init) => this.api.GET('/transactions/by-reference/{reference}', { ...init, params: { path: { reference } } }), options);
  }

  /** `GET /transactions`: every transaction matching `query`, page after page (newest first). */
  listTransactions(query: Omit<TransactionQuery, 'page'> = {}, options?: RequestOptions): AutoPaginated<Transaction> {
    return paginate((page) => this.caller.call('listTransactions', (init) => this.api.GET('/transactions', { ...init, params: { query: { ...query, page } } }), options));
  }

  /** `GET /transactions/{id}/fulfilment`: the PIN or eSIM data of a completed purchase (needs `fulfilment:read`; audited). */
  getFulfilment(id: string, options?: RequestOptions): ApiPromise<Fulfilment> {
    return this.caller.call('getTransactionFulfilment', (init) => this.api.GET('/transactions/{id}/fulfilment', { ...init, params: { path: { id } } }), options);
  }

  /** `GET /limits`: the daily allowance and limits. */
  getLimits(options?: RequestOptions): ApiPromise<Limits> {
    return this.caller.call('getLimits', (init) => this.api.GET('/limits', init), options);
  }

  /** `GET /reports/summary`: sales between two dates. */
  getSalesSummary(query: QueryOf<operations['getSalesSummary']> = {}, options?: RequestOptions): ApiPromise<SalesSummary> {
    return this.caller.call('getSalesSummary', (init) => this.api.GET('/reports/summary', { ...init, params: { query } }), options);
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

  // Webhook endpoints (`webhooks:read` / `webhooks:write`)

  /** `GET /webhook-endpoints`: endpoints, never their secrets. */
  listWebhookEndpoints(options?: RequestOptions): ApiPromise<PurchaseWebhookEndpoint[]> {
    return this.caller.call('listWebhookEndpoints', (init) => this.api.GET('/webhook-endpoints', init), options);
  }

  /** `POST /webhook-endpoints`: the answer carries `secret` (`whsec_…`) once. */
  createWebhookEndpoint(body: PurchaseBody<'createWebhookEndpoint'>, options?: RequestOptions): ApiPromise<PurchaseWebhookEndpointWithSecret> {
    return this.caller.call('createWebhookEndpoint', (init) => this.api.POST('/webhook-endpoints', { ...init, body }), options);
  }

  /** `GET /webhook-endpoints/{id}`. */
  getWebhookEndpoint(id: string, options?: RequestOptions): ApiPromise<PurchaseWebhookEndpoint> {
    return this.caller.call('getWebhookEndpoint', (init) => this.api.GET('/webhook-endpoints/{id}', { ...init, params: { path: { id } } }), options);
  }

  /** `PATCH /webhook-endpoints/{id}`. */
  updateWebhookEndpoint(id: string, body: PurchaseBody<'updateWebhookEndpoint'>, options?: RequestOptions): ApiPromise<PurchaseWebhookEndpoint> {
    return this.caller.call('updateWebhookEndpoint', (init) => this.api.PATCH('/webhook-endpoints/{id}', { ...init, params: { path: { id } }, body }), options);
  }

  /** `DELETE /webhook-endpoints/{id}`: pending deliveries are cancelled, the log is kept. */
  deleteWebhookEndpoint(id: string, options?: RequestOptions) {
    return this.caller.call('deleteWebhookEndpoint', (init) => this.api.DELETE('/webhook-endpoints/{id}', { ...init, params: { path: { id } } }), options);
  }

  /** `POST /webhook-endpoints/{id}/rotate-secret`: a new secret (shown once); the old one signs too for `overlap_seconds`. */
  rotateWebhookSecret(id: string, body: PurchaseBody<'rotateWebhookSecret'> = {}, options?: RequestOptions): ApiPromise<PurchaseWebhookEndpointWithSecret> {
    return this.caller.call('rotateWebhookSecret', (init) => this.api.POST('/webhook-endpoints/{id}/rotate-secret', { ...init, params: { path: { id } }, body }), options);
  }

  /** `GET /webhook-endpoints/{id}/deliveries`: the delivery log, newest first, page after page. */
  listWebhookDeliveries(id: string, query: { per_page?: number } = {}, options?: RequestOptions): AutoPaginated<PurchaseWebhookDelivery> {
    const perPage = query.per_page ?? 20;
    return paginate(
      (page) => this.caller.call('listWebhookDeliveries', (init) => this.api.GET('/webhook-endpoints/{id}/deliveries', { ...init, params: { path: { id }, query: { page, per_page: perPage } } }), options),
      perPage,
    );
  }

  /** `POST /webhook-endpoints/{id}/events/{eventId}/redeliver`: delivers the event again (a new log entry). */
  redeliverWebhookEvent(id: string, eventId: string, options?: RequestOptions): ApiPromise<PurchaseWebhookDelivery> {
    return this.caller.call('redeliverWebhookEvent', (init) => this.api.POST('/webhook-endpoints/{id}/events/{eventId}/redeliver', { ...init, params: { path: { id, eventId } } }), options);
  }
}
