import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FieldEncryption, NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec } from '#queues';
import { eventsOf, type WebhookEventType, type WebhookGateway } from './webhook-event-types.js';
import { generateWebhookSecret } from './webhook-signature.js';
import { resolveDeliverable, urlProblems, WebhookUrlRefusedError } from './webhook-url-guard.js';

/** An endpoint as the API returns it; the secret appears only in the answers of create and rotate. */
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

export interface WebhookDeliveryView {
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  redelivery_of: string | null;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

export interface EndpointInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  enabled?: unknown;
}

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = 'id, url, description, events, enabled, previous_secret_expires_at, created_at, updated_at';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
    private readonly encryption: FieldEncryption,
    private readonly config: GatewayEnv,
  ) {}

  async create(vendorId: string, gateway: WebhookGateway, input: EndpointInput): Promise<WebhookEndpointWithSecret> {
    const errors: Record<string, string[]> = {};
    const url = await this.checkUrl(input.url, errors);
    const events = this.checkEvents(gateway, input.events, errors, true);
    const description = this.checkDescription(input.description, errors);
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') errors.enabled = ['enabled must be a boolean'];
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    const secret = generateWebhookSecret();
    return this.dataSource.transaction(async (manager) => {
      // The vendor row lock serialises concurrent creates, so the limit holds; NO KEY UPDATE does not
      // wait for the key-share locks that status moves take on the vendor (their events reference it).
      await manager.query(`SELECT 1 FROM vendors WHERE id = $1 FOR NO KEY UPDATE`, [vendorId]);
      const [{ count }] = await manager.query(
        `SELECT count(*)::int AS count FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND deleted_at IS NULL`,
        [vendorId, gateway],
      );
      if (count >= MAX_ENDPOINTS) throw new ValidationFailedError({ url: [`at most ${MAX_ENDPOINTS} webhook endpoints per vendor`] });
      const [{ id }] = await manager.query(`SELECT gen_random_uuid() AS id`);
      const [row] = (await manager.query(
        `INSERT INTO webhook_endpoints (id, vendor_id, gateway, url, description, events, enabled, secret_encrypted)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ENDPOINT_COLUMNS}`,
        [id, vendorId, gateway, url, description ?? null, events, input.enabled ?? true, this.encryption.encrypt(secret, endpointSecretContext(id))],
      )) as EndpointRow[];
      this.logger.log({ vendorId, endpointId: id, gateway }, 'Webhook endpoint registered');
      return { ...viewOf(row), secret };
    });
  }

  async list(vendorId: string, gateway: WebhookGateway): Promise<WebhookEndpointView[]> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND deleted_at IS NULL ORDER BY created_at, id`,
      [vendorId, gateway],
    );
    return rows.map(viewOf);
  }

  async get(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<WebhookEndpointView> {
    return viewOf(await this.find(vendorId, gateway, endpointId));
  }

  async update(vendorId: string, gateway: WebhookGateway, endpointId: string, input: EndpointInput): Promise<WebhookEndpointView> {
    await this.find(vendorId, gateway, endpointId);
    const errors: Record<string, string[]> = {};
    const changes = new Map<string, unknown>();
    if (input.url !== undefined) changes.set('url', await this.checkUrl(input.url, errors));
    if (input.events !== undefined) changes.set('events', this.checkEvents(gateway, input.events, errors, true));
    if (input.description !== undefined) changes.set('description', this.checkDescription(input.description, errors));
    if (input.enabled !== undefined) {
      if (typeof input.enabled !== 'boolean') errors.enabled = ['enabled must be a boolean'];
      changes.set('enabled', input.enabled);
    }
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    const assignments = [...changes.keys()].map((column, index) => `${column} = $${index + 4}`);
    const [rows] = await this.dataSource.query(
      `UPDATE webhook_endpoints SET ${[...assignments, 'updated_at = now()'].join(', ')}
        WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
      [vendorId, gateway, endpointId, ...changes.values()],
    );
    if (rows.length === 0) throw new NotFoundError('webhook endpoint');
    return viewOf(rows[0] as EndpointRow);
  }

  /** Soft delete: the delivery log stays for staff; pending deliveries are cancelled (the worker skips them). */
  async remove(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<{ id: string; deleted: true }> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = await manager.query(
        `UPDATE webhook_endpoints SET deleted_at = now(), enabled = false, updated_at = now()
          WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL RETURNING id`,
        [vendorId, gateway, this.uuidOr404(endpointId)],
      );
      if (rows.length === 0) throw new NotFoundError('webhook endpoint');
      await manager.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'endpoint deleted', updated_at = now()
          WHERE endpoint_id = $1 AND status = 'pending'`,
        [endpointId],
      );
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
      const [current] = (await manager.query(
        `SELECT id, secret_encrypted FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL FOR UPDATE`,
        [vendorId, gateway, this.uuidOr404(endpointId)],
      )) as { id: string; secret_encrypted: string }[];
      if (!current) throw new NotFoundError('webhook endpoint');
      const secret = generateWebhookSecret();
      const [rows] = await manager.query(
        `UPDATE webhook_endpoints SET previous_secret_encrypted = CASE WHEN $3::int > 0 THEN secret_encrypted END,
                previous_secret_expires_at = CASE WHEN $3::int > 0 THEN now() + make_interval(secs => $3::int) END,
                secret_encrypted = $2, updated_at = now()
          WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
        [current.id, this.encryption.encrypt(secret, endpointSecretContext(current.id)), overlapSeconds],
      );
      this.logger.log({ vendorId, endpointId: current.id, overlapSeconds }, 'Webhook secret rotated');
      return { ...viewOf(rows[0] as EndpointRow), secret };
    });
  }

  async deliveries(vendorId: string, gateway: WebhookGateway, endpointId: string, page: number, perPage: number): Promise<WebhookDeliveryView[]> {
    await this.find(vendorId, gateway, endpointId);
    const rows: (Omit<WebhookDeliveryView, 'next_attempt_at' | 'delivered_at' | 'created_at'> & { next_attempt_at: Date | null; delivered_at: Date | null; created_at: Date })[] =
      await this.dataSource.query(
        `SELECT d.id, d.event_id, e.type AS event_type, d.redelivery_of, d.status, d.attempts, d.last_http_status, d.last_error,
                d.next_attempt_at, d.delivered_at, d.created_at
           FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2 OFFSET $3`,
        [endpointId, perPage, (page - 1) * perPage],
      );
    return rows.map((row) => ({
      ...row,
      next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
      delivered_at: iso(row.delivered_at),
      created_at: iso(row.created_at)!,
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
      const [original] = (await manager.query(
        `SELECT d.id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 AND d.event_id = $2 AND d.redelivery_of IS NULL AND e.vendor_id = $3`,
        [endpointId, this.uuidOr404(eventId, 'webhook event'), vendorId],
      )) as { id: string }[];
      if (!original) throw new NotFoundError('webhook event');
      const [created] = (await manager.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, redelivery_of) VALUES ($1, $2, $3) RETURNING id, seq`,
        [eventId, endpointId, original.id],
      )) as { id: string; seq: number }[];
      await enqueueInTransaction(manager, jobSpec('webhook.deliver', { deliveryId: created.id, seq: created.seq }));
      return created.id;
    });
    const [view] = (await this.deliveries(vendorId, gateway, endpointId, 1, 1000)).filter((delivery) => delivery.id === deliveryId);
    return view;
  }

  private async find(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<EndpointRow> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL`,
      [vendorId, gateway, this.uuidOr404(endpointId)],
    );
    if (rows.length === 0) throw new NotFoundError('webhook endpoint');
    return rows[0];
  }

  private uuidOr404(id: string, what = 'webhook endpoint'): string {
    if (!UUID.test(id)) throw new NotFoundError(what);
    return id;
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
        await resolveDeliverable(new URL(value).hostname, this.config.isProduction);
      } catch (error) {
        problems.push(error instanceof WebhookUrlRefusedError ? `url refused: ${error.message}` : 'url host does not resolve');
      }
    }
    if (problems.length > 0) errors.url = problems;
    return value;
  }

  private checkEvents(gateway: WebhookGateway, value: unknown, errors: Record<string, string[]>, required: boolean): WebhookEventType[] {
    const allowed = eventsOf(gateway);
    if (!Array.isArray(value) || (required && value.length === 0)) {
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
    return value;
  }
}

function viewOf(row: EndpointRow): WebhookEndpointView {
  const overlapOpen = row.previous_secret_expires_at !== null && new Date(row.previous_secret_expires_at).getTime() > Date.now();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    previous_secret_expires_at: overlapOpen ? iso(row.previous_secret_expires_at) : null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
