import type { Client } from 'openapi-fetch';
import { createApi, pollUntil, replayed, unwrap, type WaitOptions } from './core.js';
import type { components, paths } from './generated/payout.js';
import type { ClientOptions } from './transport.js';

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
/** Every code the payout gateway can answer; each operation's codes are in the generated types. */
export type PayoutErrorCode = Schemas['ErrorEnvelope']['code'];

/**
 * `paid` can still become `reversed` within 2 h (the reversal window). `needs_review` is not
 * final: operations resolve it, so the wait helpers keep polling it.
 */
export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['paid', 'failed', 'reversed', 'cancelled'];
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['completed', 'completed_with_failures', 'cancelled'];

/** The payout contract's reference is the idempotency key of these POSTs: the same body can be sent again. */
const REFERENCE_KEYED_PATHS = ['/api/v1/payouts', '/api/v1/batches'];

/** The contract's payout cadence: 5 s, doubling up to 5 minutes; default timeout 10 minutes. */
const PAYOUT_CADENCE = { timeoutMs: 600_000, intervalMs: 5_000, maxIntervalMs: 300_000 };

/** The payout gateway: typed calls for the common flow, and `api` for every operation of its document. */
export class PayoutClient {
  /** The generated openapi-fetch client (bearer auth and retries included) for any other operation. */
  readonly api: Client<paths>;

  constructor(options: ClientOptions) {
    this.api = createApi<paths>(options, 'origin', REFERENCE_KEYED_PATHS);
  }

  async getAccount(): Promise<Account> {
    return (await unwrap<{ data: Account }, PayoutErrorCode>(this.api.GET('/api/v1/account'))).data;
  }

  async listMethods(): Promise<Method[]> {
    return (await unwrap<{ data: Method[] }, PayoutErrorCode>(this.api.GET('/api/v1/methods'))).data;
  }

  /**
   * Pays once per `reference`: sending the same body again answers the stored result (`replayed`).
   * A provider refusal throws GatewayApiError `PROVIDER_REJECTED` (422), on a replay too: the payout
   * exists as `failed` (`provider_rejected`) with its hold released; `getPayout` reads it.
   */
  async createPayout(body: PayoutRequest): Promise<{ payout: Payout; replayed: boolean }> {
    const { data, response } = await unwrap<{ data: Payout }, PayoutErrorCode>(this.api.POST('/api/v1/payouts', { body }));
    return { payout: data, replayed: replayed(response) };
  }

  async getPayout(reference: string): Promise<Payout> {
    return (await unwrap<{ data: Payout }, PayoutErrorCode>(this.api.GET('/api/v1/payouts/{reference}', { params: { path: { reference } } }))).data;
  }

  /** The PIN and instructions of a cash payout (needs `payouts:delivery`; the read is audited). */
  async getDelivery(reference: string): Promise<Delivery> {
    return (await unwrap<{ data: Delivery }, PayoutErrorCode>(this.api.GET('/api/v1/payouts/{reference}/delivery', { params: { path: { reference } } }))).data;
  }

  /** Polls a payout until `paid`, `failed`, `reversed` or `cancelled` (`needs_review` is not final). */
  async waitForFinal(reference: string, options: WaitOptions = {}): Promise<Payout> {
    return pollUntil(() => this.getPayout(reference), (payout) => FINAL_PAYOUT_STATUSES.includes(payout.status), options, PAYOUT_CADENCE);
  }

  /** Accepts a batch once per `reference` (202 `processing`); its items are paid in the background. */
  async createBatch(body: BatchRequest): Promise<{ batch: Batch; replayed: boolean }> {
    const { data, response } = await unwrap<{ data: Batch }, PayoutErrorCode>(this.api.POST('/api/v1/batches', { body }));
    return { batch: data, replayed: replayed(response) };
  }

  async getBatch(reference: string): Promise<Batch> {
    return (await unwrap<{ data: Batch }, PayoutErrorCode>(this.api.GET('/api/v1/batches/{reference}', { params: { path: { reference } } }))).data;
  }

  /** Polls a batch until `completed`, `completed_with_failures` or `cancelled`. */
  async waitForBatch(reference: string, options: WaitOptions = {}): Promise<Batch> {
    return pollUntil(() => this.getBatch(reference), (batch) => FINAL_BATCH_STATUSES.includes(batch.status), options, PAYOUT_CADENCE);
  }
}
