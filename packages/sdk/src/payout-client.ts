import type { Client } from 'openapi-fetch';
import { Caller, createApi, paginate, pollUntil, type ApiPromise, type AutoPaginated, type WaitOptions } from './core.js';
import { GatewayApiError } from './errors.js';
import type { components, operations, paths } from './generated/payout.js';
import type { BodyOf, ErrorBodies, PayoutCodeOf } from './operation-types.js';
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
/** Every code the payout gateway can answer; each operation's codes are in the generated types. */
export type PayoutErrorCode = Schemas['ErrorEnvelope']['code'];
export type PayoutWebhookEndpoint = Schemas['WebhookEndpoint'];
export type PayoutWebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type PayoutWebhookDelivery = Schemas['WebhookDelivery'];

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

/** The payout contract's reference is the idempotency key of these POSTs: the same body can be sent again. */
const REFERENCE_KEYED_PATHS = ['/api/v1/payouts', '/api/v1/batches'];

/** The contract's payout cadence: 5 s, doubling up to 5 minutes; default timeout 10 minutes. */
const PAYOUT_CADENCE = { timeoutMs: 600_000, intervalMs: 5_000, maxIntervalMs: 300_000 };

/** The payout gateway: one method per operation of its document, and `api` for raw typed calls. */
export class PayoutClient {
  /** The generated openapi-fetch client (bearer auth and retries included) for raw typed calls. */
  readonly api: Client<paths>;
  private readonly caller: Caller;

  constructor(options: ClientOptions) {
    this.api = createApi<paths>(options, 'origin', REFERENCE_KEYED_PATHS);
    this.caller = new Caller(options, REFERENCE_KEYED_PATHS);
  }

  /** `GET /api/v1/account`: the prefunded balance. */
  getAccount(options?: RequestOptions): ApiPromise<Account> {
    return this.caller.call('getAccount', (init) => this.api.GET('/api/v1/account', init), options);
  }

  /** `GET /api/v1/methods`: the enabled methods and their fees. */
  listMethods(options?: RequestOptions): ApiPromise<Method[]> {
    return this.caller.call('listMethods', (init) => this.api.GET('/api/v1/methods', init), options);
  }

  /**
   * `POST /api/v1/payouts`: pays once per `reference`; sending the same body again answers the
   * stored result (`replayed`). A provider refusal throws ProviderError `PROVIDER_REJECTED` (422), on
   * a replay too: the payout exists as `failed` (`provider_rejected`) with its hold released.
   */
  createPayout(body: PayoutRequest, options?: RequestOptions): ApiPromise<{ payout: Payout; replayed: boolean }> {
    return this.caller.call('createPayout', (init) => this.api.POST('/api/v1/payouts', { ...init, body }), options, (payout, response) => ({
      payout,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    }));
  }

  /** `GET /api/v1/payouts/{reference}`. */
  getPayout(reference: string, options?: RequestOptions): ApiPromise<Payout> {
    return this.caller.call('getPayout', (init) => this.api.GET('/api/v1/payouts/{reference}', { ...init, params: { path: { reference } } }), options);
  }

  /** `GET /api/v1/payouts/{reference}/delivery`: the PIN and instructions of a cash payout (needs `payouts:delivery`; audited). */
  getDelivery(reference: string, options?: RequestOptions): ApiPromise<Delivery> {
    return this.caller.call('getDelivery', (init) => this.api.GET('/api/v1/payouts/{reference}/delivery', { ...init, params: { path: { reference } } }), options);
  }

  /** `POST /api/v1/payouts/{reference}/resend-sms`: sends the recipient's SMS again (cooldown: `RATE_LIMITED`). */
  resendSms(reference: string, options?: RequestOptions) {
    return this.caller.call('resendSms', (init) => this.api.POST('/api/v1/payouts/{reference}/resend-sms', { ...init, params: { path: { reference } } }), options);
  }

  /** Polls a payout until `paid`, `failed`, `reversed` or `cancelled` (`needs_review` is not final). */
  async waitForFinal(reference: string, options: WaitOptions = {}): Promise<Payout> {
    return pollUntil(() => this.getPayout(reference, { signal: options.signal }), (payout) => FINAL_PAYOUT_STATUSES.includes(payout.status), options, PAYOUT_CADENCE);
  }

  /** `POST /api/v1/batches`: accepts a batch once per `reference` (202 `processing`); its items are paid in the background. */
  createBatch(body: BatchRequest, options?: RequestOptions): ApiPromise<{ batch: Batch; replayed: boolean }> {
    return this.caller.call('createBatch', (init) => this.api.POST('/api/v1/batches', { ...init, body }), options, (batch, response) => ({
      batch,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    }));
  }

  /** `GET /api/v1/batches/{reference}`. */
  getBatch(reference: string, options?: RequestOptions): ApiPromise<Batch> {
    return this.caller.call('getBatch', (init) => this.api.GET('/api/v1/batches/{reference}', { ...init, params: { path: { reference } } }), options);
  }

  /** Polls a batch until `completed`, `completed_with_failures` or `cancelled`. */
  async waitForBatch(reference: string, options: WaitOptions = {}): Promise<Batch> {
    return pollUntil(() => this.getBatch(reference, { signal: options.signal }), (batch) => FINAL_BATCH_STATUSES.includes(batch.status), options, PAYOUT_CADENCE);
  }

  // Webhook endpoints (`webhooks:read` / `webhooks:write`)

  /** `GET /api/v1/webhook-endpoints`: endpoints, never their secrets. */
  listWebhookEndpoints(options?: RequestOptions): ApiPromise<PayoutWebhookEndpoint[]> {
    return this.caller.call('listWebhookEndpoints', (init) => this.api.GET('/api/v1/webhook-endpoints', init), options);
  }

  /** `POST /api/v1/webhook-endpoints`: the answer carries `secret` (`whsec_…`) once. */
  createWebhookEndpoint(body: PayoutBody<'createWebhookEndpoint'>, options?: RequestOptions): ApiPromise<PayoutWebhookEndpointWithSecret> {
    return this.caller.call('createWebhookEndpoint', (init) => this.api.POST('/api/v1/webhook-endpoints', { ...init, body }), options);
  }

  /** `GET /api/v1/webhook-endpoints/{id}`. */
  getWebhookEndpoint(id: string, options?: RequestOptions): ApiPromise<PayoutWebhookEndpoint> {
    return this.caller.call('getWebhookEndpoint', (init) => this.api.GET('/api/v1/webhook-endpoints/{id}', { ...init, params: { path: { id } } }), options);
  }

  /** `PATCH /api/v1/webhook-endpoints/{id}`. */
  updateWebhookEndpoint(id: string, body: PayoutBody<'updateWebhookEndpoint'>, options?: RequestOptions): ApiPromise<PayoutWebhookEndpoint> {
    return this.caller.call('updateWebhookEndpoint', (init) => this.api.PATCH('/api/v1/webhook-endpoints/{id}', { ...init, params: { path: { id } }, body }), options);
  }

  /** `DELETE /api/v1/webhook-endpoints/{id}`. */
  deleteWebhookEndpoint(id: string, options?: RequestOptions) {
    return this.caller.call('deleteWebhookEndpoint', (init) => this.api.DELETE('/api/v1/webhook-endpoints/{id}', { ...init, params: { path: { id } } }), options);
  }

  /** `POST /api/v1/webhook-endpoints/{id}/rotate-secret`: a new secret (shown once); the old one signs too for `overlap_seconds`. */
  rotateWebhookSecret(id: string, body: PayoutBody<'rotateWebhookSecret'> = {}, options?: RequestOptions): ApiPromise<PayoutWebhookEndpointWithSecret> {
    return this.caller.call('rotateWebhookSecret', (init) => this.api.POST('/api/v1/webhook-endpoints/{id}/rotate-secret', { ...init, params: { path: { id } }, body }), options);
  }

  /** `GET /api/v1/webhook-endpoints/{id}/deliveries`: the delivery log, newest first, page after page. */
  listWebhookDeliveries(id: string, query: { per_page?: number } = {}, options?: RequestOptions): AutoPaginated<PayoutWebhookDelivery> {
    const perPage = query.per_page ?? 20;
    return paginate(
      (page) => this.caller.call('listWebhookDeliveries', (init) => this.api.GET('/api/v1/webhook-endpoints/{id}/deliveries', { ...init, params: { path: { id }, query: { page, per_page: perPage } } }), options),
      perPage,
    );
  }

  /** `POST /api/v1/webhook-endpoints/{id}/events/{eventId}/redeliver`: delivers the event again. */
  redeliverWebhookEvent(id: string, eventId: string, options?: RequestOptions): ApiPromise<PayoutWebhookDelivery> {
    return this.caller.call('redeliverWebhookEvent', (init) => this.api.POST('/api/v1/webhook-endpoints/{id}/events/{eventId}/redeliver', { ...init, params: { path: { id, eventId } } }), options);
  }
}
