import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape, updateReturning } from '#database';
import type { WebhookEventType, WebhookGateway } from '../webhook-event-types.js';

/** A webhook endpoint as the API reads it (never the secrets). */
export interface WebhookEndpointRecord {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebhookEndpoint = Pick<WebhookEndpointRecord, 'id' | 'url' | 'description' | 'events' | 'enabled'> & {
  vendorId: string;
  gateway: WebhookGateway;
  secretEncrypted: string;
};

/** What an update may change: each present member is a column's new value. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled'>>;

const ENDPOINT = readShape<WebhookEndpointRecord>({
  id: 'id', url: 'url', description: 'description', events: 'events', enabled: 'enabled',
  previousSecretExpiresAt: 'previous_secret_expires_at', createdAt: 'created_at', updatedAt: 'updated_at',
});

/**
 * The webhook_endpoints table. Every vendor-facing statement carries the vendor id and the
 * gateway, so another vendor's (or the other gateway's) endpoint is simply not found.
 */
@Injectable()
export class WebhookEndpointRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The vendor's live endpoints on the gateway, counted under the vendor row's lock: concurrent
   * creates serialise on it, so the limit holds. NO KEY UPDATE does not wait for the key-share
   * locks that status moves take on the vendor (their events reference it). This is a lock, not a
   * read of vendor facts (those come from #auth's VendorDirectory): it must be taken in this
   * transaction, on the row itself, before the count.
   */
  async lockVendorAndCount(manager: EntityManager, vendorId: string, gateway: WebhookGateway): Promise<number> {
    await manager.query(`SELECT 1 FROM vendors WHERE id = $1 FOR NO KEY UPDATE`, [vendorId]);
    const [{ count }] = (await manager.query(`SELECT count(*)::int AS count FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND deleted_at IS NULL`, [
      vendorId,
      gateway,
    ])) as { count: number }[];
    return count;
  }

  /** A fresh id, drawn first because the secret's encryption is bound to it. */
  async newId(manager: EntityManager): Promise<string> {
    const [{ id }] = (await manager.query(`SELECT gen_random_uuid() AS id`)) as { id: string }[];
    return id;
  }

  async insert(manager: EntityManager, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRecord> {
    const [row] = (await manager.query(
      `INSERT INTO webhook_endpoints (id, vendor_id, gateway, url, description, events, enabled, secret_encrypted)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ENDPOINT.columns}`,
      [endpoint.id, endpoint.vendorId, endpoint.gateway, endpoint.url, endpoint.description, endpoint.events, endpoint.enabled, endpoint.secretEncrypted],
    )) as WebhookEndpointRecord[];
    return row;
  }

  list(vendorId: string, gateway: WebhookGateway): Promise<WebhookEndpointRecord[]> {
    return this.dataSource.query(`SELECT ${ENDPOINT.columns} FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND deleted_at IS NULL ORDER BY created_at, id`, [
      vendorId,
      gateway,
    ]);
  }

  async find(vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
    const rows: WebhookEndpointRecord[] = await this.dataSource.query(
      `SELECT ${ENDPOINT.columns} FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL`,
      [vendorId, gateway, endpointId],
    );
    return rows[0];
  }

  async update(vendorId: string, gateway: WebhookGateway, endpointId: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | undefined> {
    const columns = Object.keys(changes) as Array<keyof WebhookEndpointChanges>;
    const assignments = columns.map((column, index) => `${column} = $${index + 4}`);
    const rows = await updateReturning<WebhookEndpointRecord>(
      this.dataSource,
      `UPDATE webhook_endpoints SET ${[...assignments, 'updated_at = now()'].join(', ')}
        WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL RETURNING ${ENDPOINT.columns}`,
      [vendorId, gateway, endpointId, ...columns.map((column) => changes[column])],
    );
    return rows[0];
  }

  /** Soft delete (the delivery log stays for staff): whether the endpoint was there to delete. */
  async softDelete(manager: EntityManager, vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<boolean> {
    const rows = await updateReturning<{ id: string }>(
      manager,
      `UPDATE webhook_endpoints SET deleted_at = now(), enabled = false, updated_at = now()
          WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL RETURNING id`,
      [vendorId, gateway, endpointId],
    );
    return rows.length > 0;
  }

  /** The endpoint's id, its row locked for a secret rotation; undefined when not the vendor's. */
  async lockForRotation(manager: EntityManager, vendorId: string, gateway: WebhookGateway, endpointId: string): Promise<string | undefined> {
    const [current] = (await manager.query(`SELECT id, secret_encrypted FROM webhook_endpoints WHERE vendor_id = $1 AND gateway = $2 AND id = $3 AND deleted_at IS NULL FOR UPDATE`, [
      vendorId,
      gateway,
      endpointId,
    ])) as { id: string; secret_encrypted: string }[];
    return current?.id;
  }

  /** The new secret signs from now; the current one keeps signing for overlapSeconds (0: not at all). */
  async rotateSecret(manager: EntityManager, endpointId: string, secretEncrypted: string, overlapSeconds: number): Promise<WebhookEndpointRecord> {
    const [row] = await updateReturning<WebhookEndpointRecord>(
      manager,
      `UPDATE webhook_endpoints SET previous_secret_encrypted = CASE WHEN $3::int > 0 THEN secret_encrypted END,
                previous_secret_expires_at = CASE WHEN $3::int > 0 THEN now() + make_interval(secs => $3::int) END,
                secret_encrypted = $2, updated_at = now()
          WHERE id = $1 RETURNING ${ENDPOINT.columns}`,
      [endpointId, secretEncrypted, overlapSeconds],
    );
    return row;
  }
}
