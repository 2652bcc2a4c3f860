import { Caller, createHttp, paginate, type ApiPromise, type AutoPaginated, type BaseUrlRule, type Page } from './core.js';
import type { Http, SendParams } from './http.js';
import type { BodyOf, DataOf } from './operation-types.js';
import type { ClientOptions, RequestOptions } from './transport.js';

/** The webhook-endpoint operations both gateways' documents declare under the same `operationId`s. */
type WebhookEndpointOperation =
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookSecret'
  | 'listWebhookDeliveries';

/** The item of a listed page (a `Page` or a plain array). */
type ItemOf<Data> = Data extends Page<infer Item> ? Item : Data extends readonly (infer Item)[] ? Item : never;

/**
 * What both gateway clients share: the transport, one typed call per operation, and the webhook
 * endpoints (the same operations in both documents, only under another path prefix). Typed by the
 * gateway's generated `operations`, so every method answers exactly that document's types.
 */
export abstract class GatewayClient<Ops extends Record<WebhookEndpointOperation, unknown>> {
  private readonly http: Http;
  private readonly caller: Caller;

  protected constructor(
    options: ClientOptions,
    baseUrlRule: BaseUrlRule,
    referenceKeyedPaths: readonly string[],
    /** What comes before `/webhook-endpoints` in this gateway's paths. */
    private readonly webhookPathPrefix: string,
  ) {
    this.http = createHttp(options, baseUrlRule);
    this.caller = new Caller(options, referenceKeyedPaths);
  }

  /** One operation: its `operationId` (for typed error codes), method, path and parameters. */
  protected run<Op extends keyof Ops & string, Out = DataOf<Ops[Op]>>(
    operation: Op,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    request: { params?: SendParams; body?: unknown },
    options?: RequestOptions,
    map?: (data: DataOf<Ops[Op]>, response: Response) => Out,
  ): ApiPromise<Out> {
    return this.caller.call<DataOf<Ops[Op]>, Out>(operation, (init) => this.http.send(method, path, { ...init, ...request }), options, map);
  }

  // Webhook endpoints (`webhooks:read` / `webhooks:write`)

  /** `GET …/webhook-endpoints`: endpoints, never their secrets. */
  listWebhookEndpoints(options?: RequestOptions): ApiPromise<DataOf<Ops['listWebhookEndpoints']>> {
    return this.run('listWebhookEndpoints', 'GET', `${this.webhookPathPrefix}/webhook-endpoints`, {}, options);
  }

  /** `POST …/webhook-endpoints`: the answer carries `secret` (`whsec_…`) once. */
  createWebhookEndpoint(body: BodyOf<Ops['createWebhookEndpoint']>, options?: RequestOptions): ApiPromise<DataOf<Ops['createWebhookEndpoint']>> {
    return this.run('createWebhookEndpoint', 'POST', `${this.webhookPathPrefix}/webhook-endpoints`, { body }, options);
  }

  /** `GET …/webhook-endpoints/{id}`. */
  getWebhookEndpoint(id: string, options?: RequestOptions): ApiPromise<DataOf<Ops['getWebhookEndpoint']>> {
    return this.run('getWebhookEndpoint', 'GET', `${this.webhookPathPrefix}/webhook-endpoints/{id}`, { params: { path: { id } } }, options);
  }

  /** `PATCH …/webhook-endpoints/{id}`. */
  updateWebhookEndpoint(id: string, body: BodyOf<Ops['updateWebhookEndpoint']>, options?: RequestOptions): ApiPromise<DataOf<Ops['updateWebhookEndpoint']>> {
    return this.run('updateWebhookEndpoint', 'PATCH', `${this.webhookPathPrefix}/webhook-endpoints/{id}`, { params: { path: { id } }, body }, options);
  }

  /** `DELETE …/webhook-endpoints/{id}`: pending deliveries are cancelled, the log is kept. */
  deleteWebhookEndpoint(id: string, options?: RequestOptions): ApiPromise<DataOf<Ops['deleteWebhookEndpoint']>> {
    return this.run('deleteWebhookEndpoint', 'DELETE', `${this.webhookPathPrefix}/webhook-endpoints/{id}`, { params: { path: { id } } }, options);
  }

  /** `POST …/webhook-endpoints/{id}/rotate-secret`: a new secret (shown once); the old one signs too for `overlap_seconds`. */
  rotateWebhookSecret(id: string, body = {} as BodyOf<Ops['rotateWebhookSecret']>, options?: RequestOptions): ApiPromise<DataOf<Ops['rotateWebhookSecret']>> {
    return this.run('rotateWebhookSecret', 'POST', `${this.webhookPathPrefix}/webhook-endpoints/{id}/rotate-secret`, { params: { path: { id } }, body }, options);
  }

  /** `GET …/webhook-endpoints/{id}/deliveries`: the delivery log, newest first, page after page. */
  listWebhookDeliveries(id: string, query: { per_page?: number } = {}, options?: RequestOptions): AutoPaginated<ItemOf<DataOf<Ops['listWebhookDeliveries']>>> {
    const perPage = query.per_page ?? 20;
    type Item = ItemOf<DataOf<Ops['listWebhookDeliveries']>>;
    return paginate<Item>(
      // The generic `Ops` hides that this operation answers a page or an array of `Item`; the clients' type tests pin it.
      (page) => this.run('listWebhookDeliveries', 'GET', `${this.webhookPathPrefix}/webhook-endpoints/{id}/deliveries`, { params: { path: { id }, query: { page, per_page: perPage } } }, options) as ApiPromise<Page<Item> | Item[]>,
      perPage,
    );
  }
}
