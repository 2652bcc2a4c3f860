import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FieldEncryption, NotFoundError, textRuleProblem, UUID_PATTERN, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec } from '#queues';
import { WebhookDeliveryRepository, type WebhookDeliveryStatus } from './persistence/webhook-delivery.repository.js';
import { WebhookEndpointRepository, type WebhookEndpointChanges, type WebhookEndpointRecord } from './persistence/webhook-endpoint.repository.js';
import { eventsOf, type WebhookEventType, type WebhookGateway } from './webhook-event-types.js';
import { generateWebhookSecret } from './webhook-signature.js';
import { resolveDeliverable, urlProblems, WEBHOOK_HOST_RESOLVER, WebhookUrlRefusedError, type WebhookHostResolver } from './webhook-url-guard.js';

/** An endpoint as the API returns it: its times as ISO strings; the secret appears only in the answers of create and rotate. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  /** Until when the previous secret still signs (after a rotation); null when only one secret signs. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  /** Shown once: store it now; it cannot be read again (rotate to get a new one). */
  secret: string;
}

/** A delivery-log entry as the API returns it: its times as ISO strings. */
export interface WebhookDeliveryView {
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  redelivery_of: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

/** A page of the delivery log: `{items, page, total, last_page}`, as every list of both gateways. */
export interface WebhookDeliveryPage {
  items: WebhookDeliveryView[];
  page: number;
  total: number;
  last_page: number;
}

export interface EndpointInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  enabled?: unknown;
}

/** A vendor's endpoints per gateway: enough for separate environments and services, bounded so one vendor cannot fan an event out without limit. */
const MAX_ENDPOINTS = 10;

export const endpointSecretContext = (endpointId: string) => `webhook-endpoint-secret:${endpointId}`;

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

/**
 * Vendor-scoped webhook endpoints of one gateway: every query carries the vendor id and the
 * gateway, so another vendor's (or the other gateway's) endpoint answers 404. Secrets are
 * encrypted at rest with FieldEncryption, bound to the endpoint id, and never logged.
 */
@Injectable()
export class WebhookEndpointsService {
  private readonly logger = new Logger(WebhookEndpointsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly deliveryLog: WebhookDeliveryRepository,
    private readonly encryption: FieldEncryption,
    private readonly config: GatewayEnv,
    @Inject(WEBHOOK_HOST_RESOLVER) private readonly resolve: WebhookHostResolver,
  ) {}

  async create(vendorId: string, gateway: WebhookGateway, input: EndpointInput): Promise<WebhookEndpointWithSecret> {
    const { url = '', events = [], description = null, enabled = true } = await this.checkInput(gateway, input, true);
    const secret = generateWebhookSecret();
    return this.dataSource.transaction(async (manager) => {
      const count = await this.endpoints.lockVendorAndCount(manager, vendorId, gateway);
      if (count >= MAX_ENDPOINTS) throw new ValidationFailedError({ url: [`at most ${MAX_ENDPOINTS} webhook endpoints per vendor`] });
      const id = await this.endpoints.newId(manager);
      const row = await this.endpoints.insert(manager, {
        id,
        vendorId,
        gateway,
        url,
        description,
        events,
        enabled,
        secretEncrypted: this.encryption.encrypt(secret, endpointSecretContext(id)),
      });
      this.logger.log({ vendorId, endpointId: id, gateway }, 'Webhook endpoint registered');
      return { ...viewOf(row), secret };
    });
  }

  async list(vendorId: string, gateway: WebhookGateway): Promise<WebhookEndpointView[]> {
    return (await this.endpoints.list(vendorId, gateway)).map(viewOf);
  }

  async get(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<WebhookEndpointView> {
    return viewOf(await this.find(vendorId, gateway, endpointId));
  }

  async update(vendorId: string, gateway: WebhookGateway, endpointId: string, input: EndpointInput): Promise<WebhookEndpointView> {
    await this.find(vendorId, gateway, endpointId);
    const row = await this.endpoints.update(vendorId, gateway, endpointId, await this.checkInput(gateway, input, false));
    if (!row) throw new NotFoundError('webhook endpoint');
    return viewOf(row);
  }

  /** Soft delete: the delivery log stays for staff; pending deliveries are cancelled (the worker skips them). */
  async remove(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<{ id: string; deleted: true }> {
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.endpoints.softDelete(manager, vendorId, gateway, this.uuidOr404(endpointId)))) throw new NotFoundError('webhook endpoint');
      await this.deliveryLog.cancelPendingOf(manager, endpointId);
      return { id: endpointId, deleted: true as const };
    });
  }

  /**
   * A new secret, shown once. The current one becomes the previous secret and keeps signing
   * until `overlapSeconds` from now, so the vendor can deploy the new one without dropping events.
   */
  async rotateSecret(vendorId: string, gateway: WebhookGateway, endpointId: string, overlap: unknown): Promise<WebhookEndpointWithSecret> {
    const overlapSeconds = overlap === undefined ? this.config.WEBHOOK_ROTATION_OVERLAP_SECONDS : overlap;
    if (typeof overlapSeconds !== 'number' || !Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > 604_800) {
      throw new ValidationFailedError({ overlap_seconds: ['overlap_seconds must be an integer from 0 to 604800'] });
    }
    return this.dataSource.transaction(async (manager) => {
      const currentId = await this.endpoints.lockForRotation(manager, vendorId, gateway, this.uuidOr404(endpointId));
      if (!currentId) throw new NotFoundError('webhook endpoint');
      const secret = generateWebhookSecret();
      const row = await this.endpoints.rotateSecret(manager, currentId, this.encryption.encrypt(secret, endpointSecretContext(currentId)), overlapSeconds);
      this.logger.log({ vendorId, endpointId: currentId, overlapSeconds }, 'Webhook secret rotated');
      return { ...viewOf(row), secret };
    });
  }

  /** One page of the endpoint's delivery log, newest first, with the paging metadata of every list. */
  async deliveries(vendorId: string, gateway: WebhookGateway, endpointId: string, page: number, perPage: number): Promise<WebhookDeliveryPage> {
    await this.find(vendorId, gateway, endpointId);
    const [items, total] = await Promise.all([this.deliveryViews(endpointId, page, perPage), this.deliveryLog.countOf(endpointId)]);
    return { items, page, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
  }

  private async deliveryViews(endpointId: string, page: number, perPage: number): Promise<WebhookDeliveryView[]> {
    const rows = await this.deliveryLog.logOf(endpointId, perPage, (page - 1) * perPage);
    return rows.map((row) => ({
      id: row.id,
      event_id: row.eventId,
      event_type: row.eventType,
      redelivery_of: row.redeliveryOf,
      status: row.status,
      attempts: row.attempts,
      last_http_status: row.lastHttpStatus,
      last_error: row.lastError,
      next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
      delivered_at: iso(row.deliveredAt),
      created_at: iso(row.createdAt)!,
    }));
  }

  /**
   * Delivers an event again on the vendor's request: a new delivery row (the log keeps both) with
   * its first job in the outbox. The event must be one this endpoint received or was due to receive.
   */
  async redeliver(vendorId: string, gateway: WebhookGateway, endpointId: string, eventId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.find(vendorId, gateway, endpointId);
    if (!endpoint.enabled) throw new ValidationFailedError({ endpoint: ['the endpoint is disabled; enable it first'] });
    const deliveryId = await this.dataSource.transaction(async (manager) => {
      const originalId = await this.deliveryLog.originalOf(manager, vendorId, endpointId, this.uuidOr404(eventId, 'webhook event'));
      if (!originalId) throw new NotFoundError('webhook event');
      const created = await this.deliveryLog.insertRedelivery(manager, eventId, endpointId, originalId);
      await enqueueInTransaction(manager, jobSpec('webhook.deliver', { deliveryId: created.id, seq: created.seq }));
      return created.id;
    });
    const [view] = (await this.deliveryViews(endpointId, 1, 1000)).filter((delivery) => delivery.id === deliveryId);
    return view;
  }

  private async find(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<WebhookEndpointRecord> {
    const row = await this.endpoints.find(vendorId, gateway, this.uuidOr404(endpointId));
    if (!row) throw new NotFoundError('webhook endpoint');
    return row;
  }

  private uuidOr404(id: string, what = 'webhook endpoint'): string {
    if (!UUID_PATTERN.test(id)) throw new NotFoundError(what);
    return id;
  }

  /**
   * The members of `input` as column values, or every problem at once as VALIDATION_FAILED. A
   * create (`creating`) checks url and events even when absent; an update only what it was sent.
   */
  private async checkInput(gateway: WebhookGateway, input: EndpointInput, creating: boolean): Promise<WebhookEndpointChanges> {
    const errors: Record<string, string[]> = {};
    const changes: WebhookEndpointChanges = {};
    if (creating || input.url !== undefined) changes.url = await this.checkUrl(input.url, errors);
    if (creating || input.events !== undefined) changes.events = this.checkEvents(gateway, input.events, errors);
    if (input.description !== undefined) changes.description = this.checkDescription(input.description, errors);
    if (input.enabled !== undefined) {
      if (typeof input.enabled === 'boolean') changes.enabled = input.enabled;
      else errors.enabled = ['enabled must be a boolean'];
    }
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    return changes;
  }

  /** Shape first, then (in production) the SSRF check on what the host resolves to now; the worker checks again at every delivery. */
  private async checkUrl(value: unknown, errors: Record<string, string[]>): Promise<string> {
    if (typeof value !== 'string') {
      errors.url = ['url must be a string'];
      return '';
    }
    const problems = urlProblems(value, this.config.isProduction);
    if (problems.length === 0) {
      try {
        await resolveDeliverable(new URL(value).hostname, this.config.isProduction, this.resolve);
      } catch (error) {
        problems.push(error instanceof WebhookUrlRefusedError ? `url refused: ${error.message}` : 'url host does not resolve');
      }
    }
    if (problems.length > 0) errors.url = problems;
    return value;
  }

  private checkEvents(gateway: WebhookGateway, value: unknown, errors: Record<string, string[]>): WebhookEventType[] {
    const allowed = eventsOf(gateway);
    if (!Array.isArray(value) || value.length === 0) {
      errors.events = [`events must be a non-empty array of: ${allowed.join(', ')}`];
      return [];
    }
    const unknown = value.filter((event) => typeof event !== 'string' || !(allowed as readonly string[]).includes(event));
    if (unknown.length > 0) errors.events = [`unknown events for this gateway: ${unknown.map(String).join(', ')}; allowed: ${allowed.join(', ')}`];
    return [...new Set(value as WebhookEventType[])];
  }

  private checkDescription(value: unknown, errors: Record<string, string[]>): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string' || value.length > 200) {
      errors.description = ['description must be a string of at most 200 characters'];
      return null;
    }
    const problem = value.length > 0 ? textRuleProblem(value) : undefined;
    if (problem !== undefined) {
      errors.description = [`description ${problem}`];
      return null;
    }
    return value;
  }
}

function viewOf(row: WebhookEndpointRecord): WebhookEndpointView {
  const overlapOpen = row.previousSecretExpiresAt !== null && new Date(row.previousSecretExpiresAt).getTime() > Date.now();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    previous_secret_expires_at: overlapOpen ? iso(row.previousSecretExpiresAt) : null,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}
