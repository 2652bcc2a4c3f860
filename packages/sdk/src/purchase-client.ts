import type { Client } from 'openapi-fetch';
import { createApi, eachItem, pollUntil, replayed, unwrap, type WaitOptions } from './core.js';
import type { components, operations, paths } from './generated/purchase.js';
import type { ClientOptions } from './transport.js';

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
export type TransactionQuery = NonNullable<operations['listTransactions']['parameters']['query']>;
export type ProductQuery = NonNullable<operations['listProducts']['parameters']['query']>;

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

/** The purchase gateway: typed calls for the common flow, and `api` for every operation of its document. */
export class PurchaseClient {
  /** The generated openapi-fetch client (bearer auth and retries included) for any other operation. */
  readonly api: Client<paths>;

  constructor(options: ClientOptions) {
    this.api = createApi<paths>(options, 'versioned');
  }

  async createQuote(body: QuoteRequest): Promise<Quote> {
    return (await unwrap<{ data: Quote }, PurchaseErrorCode>(this.api.POST('/quotes', { body }))).data;
  }

  /**
   * Buys once. An `Idempotency-Key` (a UUID) is created unless given; the same key with the same
   * quote and reference answers the same transaction, which is what makes retrying safe.
   */
  async createTransaction(body: CreateTransactionRequest, options: { idempotencyKey?: string } = {}): Promise<CreatedTransaction> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const { data, response } = await unwrap<{ data: Transaction }, PurchaseErrorCode>(
      this.api.POST('/transactions', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body }),
    );
    return { transaction: data, idempotencyKey, replayed: replayed(response) };
  }

  async getTransaction(id: string): Promise<Transaction> {
    return (await unwrap<{ data: Transaction }, PurchaseErrorCode>(this.api.GET('/transactions/{id}', { params: { path: { id } } }))).data;
  }

  async getTransactionByReference(reference: string): Promise<Transaction> {
    return (await unwrap<{ data: Transaction }, PurchaseErrorCode>(this.api.GET('/transactions/by-reference/{reference}', { params: { path: { reference } } }))).data;
  }

  /** The PIN or eSIM data of a completed purchase (needs `fulfilment:read`; the read is audited). */
  async getFulfilment(id: string): Promise<Fulfilment> {
    return (await unwrap<{ data: Fulfilment }, PurchaseErrorCode>(this.api.GET('/transactions/{id}/fulfilment', { params: { path: { id } } }))).data;
  }

  async getLimits(): Promise<Limits> {
    return (await unwrap<{ data: Limits }, PurchaseErrorCode>(this.api.GET('/limits'))).data;
  }

  /**
   * Polls `GET /transactions/{id}` until `completed`, `failed` or `reversed`, on the contract's
   * cadence (2 s, doubling up to 60 s; default timeout 5 minutes). `review` is not final: it
   * throws WaitTimeoutError at the deadline with the last transaction in `last`.
   */
  async waitForFinal(id: string, options: WaitOptions = {}): Promise<Transaction> {
    return pollUntil(() => this.getTransaction(id), (transaction) => FINAL_TRANSACTION_STATUSES.includes(transaction.status), options, {
      timeoutMs: 300_000,
      intervalMs: 2_000,
      maxIntervalMs: 60_000,
    });
  }

  /** Every transaction matching `query`, page after page (newest first). */
  transactions(query: Omit<TransactionQuery, 'page'> = {}): AsyncGenerator<Transaction, void, undefined> {
    return eachItem(async (page) => (await unwrap(this.api.GET('/transactions', { params: { query: { ...query, page } } }))).data);
  }

  /** Every enabled product matching `query`, page after page. */
  products(query: Omit<ProductQuery, 'page'> = {}): AsyncGenerator<Product, void, undefined> {
    return eachItem(async (page) => (await unwrap(this.api.GET('/products', { params: { query: { ...query, page } } }))).data);
  }
}
