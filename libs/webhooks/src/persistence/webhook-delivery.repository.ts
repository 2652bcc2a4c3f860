import { Injectable } from '@nestjs/common';
import sql from 'sql-template-tag';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape, updateReturning } from '#database';
import { undispatchedOutboxRow } from '#queues';
import type { WebhookEventType } from '../webhook-event-types.js';
import type { WebhookDeliveryWritten } from './webhook-event.repository.js';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** A delivery as its endpoint's log lists it. */
export interface WebhookDeliveryLogEntry {
  id: string;
  eventId: string;
  eventType: WebhookEventType;
  redeliveryOf: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

const LOG_ENTRY = readShape<WebhookDeliveryLogEntry>({
  id: 'd.id', eventId: 'd.event_id', eventType: 'e.type', redeliveryOf: 'd.redelivery_of', status: 'd.status', attempts: 'd.attempts',
  lastHttpStatus: 'd.last_http_status', lastError: 'd.last_error', nextAttemptAt: 'd.next_attempt_at', deliveredAt: 'd.delivered_at', createdAt: 'd.created_at',
});

/** A delivery with its endpoint and event: everything one attempt needs. */
export interface WebhookAttempt {
  id: string;
  status: string;
  attempts: number;
  seq: number;
  endpointId: string;
  url: string;
  enabled: boolean;
  deletedAt: Date | null;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousActive: boolean;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  data: unknown;
}

const ATTEMPT = readShape<WebhookAttempt>({
  id: 'd.id', status: 'd.status', attempts: 'd.attempts', seq: 'd.seq', endpointId: 'd.endpoint_id', url: 'p.url', enabled: 'p.enabled', deletedAt: 'p.deleted_at',
  secretEncrypted: 'p.secret_encrypted', previousSecretEncrypted: 'p.previous_secret_encrypted', previousActive: '(p.previous_secret_expires_at > now())',
  eventId: 'e.id', eventType: 'e.type', eventCreatedAt: 'e.created_at', data: 'e.data',
});

/** One attempt's result, recorded with the delivery's next state. */
export interface WebhookAttemptRecord {
  deliveryId: string;
  seq: number;
  attempt: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  outcome: 'delivered' | 'failed' | 'retry';
  /** Until the next attempt when the outcome is retry. */
  delayMs: number;
}

/** webhook_deliveries and its attempt log, webhook_delivery_attempts. */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The endpoint's delivery log, newest first (the endpoint was checked to be the vendor's). */
  logOf(endpointId: string, limit: number, offset: number): Promise<WebhookDeliveryLogEntry[]> {
    return this.dataSource.query(
      `SELECT ${LOG_ENTRY.columns}
           FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2 OFFSET $3`,
      [endpointId, limit, offset],
    );
  }

  /** How many deliveries the endpoint's log holds (the `total` of its pages). */
  async countOf(endpointId: string): Promise<number> {
    const [{ count }] = (await this.dataSource.query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])) as Array<{ count: number }>;
    return count;
  }

  /** The event's first delivery to this endpoint, if the event is the vendor's. */
  async originalOf(manager: EntityManager, vendorId: string, endpointId: string, eventId: string): Promise<string | undefined> {
    const [original] = (await manager.query(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.endpoint_id = $1 AND d.event_id = $2 AND d.redelivery_of IS NULL AND e.vendor_id = $3`,
      [endpointId, eventId, vendorId],
    )) as { id: string }[];
    return original?.id;
  }

  async insertRedelivery(manager: EntityManager, eventId: string, endpointId: string, originalId: string): Promise<WebhookDeliveryWritten> {
    const [created] = (await manager.query(`INSERT INTO webhook_deliveries (event_id, endpoint_id, redelivery_of) VALUES ($1, $2, $3) RETURNING id, seq`, [
      eventId,
      endpointId,
      originalId,
    ])) as WebhookDeliveryWritten[];
    return created;
  }

  /** A deleted endpoint's pending deliveries end (the worker would skip them anyway). */
  async cancelPendingOf(manager: EntityManager, endpointId: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'endpoint deleted', updated_at = now()
          WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId],
    );
  }

  async forAttempt(deliveryId: string): Promise<WebhookAttempt | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT ${ATTEMPT.columns}
         FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id JOIN webhook_events e ON e.id = d.event_id
        WHERE d.id = $1`,
      [deliveryId],
    )) as WebhookAttempt[];
    return row;
  }

  /** The endpoint was disabled or deleted: this generation of the delivery ends without an attempt. */
  async cancelForDisabledEndpoint(deliveryId: string, seq: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'endpoint disabled', updated_at = now()
          WHERE id = $1 AND seq = $2 AND status = 'pending'`,
      [deliveryId, seq],
    );
  }

  /**
   * Records an attempt and the delivery's next state, guarded by seq and status: a racing
   * duplicate of the job (stall recovery) records nothing twice. Undefined when it was stale;
   * otherwise the delivery's seq and next attempt time after it.
   */
  async recordAttempt(manager: EntityManager, record: WebhookAttemptRecord): Promise<{ seq: number; next_attempt_at: Date | null } | undefined> {
    const [updated] = await updateReturning<{ seq: number; next_attempt_at: Date | null }>(
      manager,
      `UPDATE webhook_deliveries SET attempts = $3, last_http_status = $4, last_error = $5, updated_at = now(),
                status = CASE WHEN $6 = 'delivered' THEN 'delivered' WHEN $6 = 'failed' THEN 'failed' ELSE 'pending' END,
                delivered_at = CASE WHEN $6 = 'delivered' THEN now() END,
                seq = CASE WHEN $6 = 'retry' THEN seq + 1 ELSE seq END,
                next_attempt_at = CASE WHEN $6 = 'retry' THEN now() + make_interval(secs => $7::double precision / 1000) END
          WHERE id = $1 AND seq = $2 AND status = 'pending' RETURNING seq, next_attempt_at`,
      [record.deliveryId, record.seq, record.attempt, record.httpStatus, record.error, record.outcome, record.delayMs],
    );
    if (!updated) return undefined;
    await manager.query(`INSERT INTO webhook_delivery_attempts (delivery_id, attempt, http_status, error, duration_ms) VALUES ($1, $2, $3, $4, $5)`, [
      record.deliveryId,
      record.attempt,
      record.httpStatus,
      record.error,
      record.durationMs,
    ]);
    return updated;
  }

  /**
   * Pending deliveries overdue by more than slackSeconds with no undispatched outbox row for their
   * current job get a new job generation (seq + 1), at most `limit` of them.
   */
  overdueToRebuild(slackSeconds: number, limit: number): Promise<WebhookDeliveryWritten[]> {
    const currentJob = sql`o.payload->>'deliveryId' = d.id::text AND (o.payload->>'seq')::int = d.seq`;
    return updateReturning<WebhookDeliveryWritten>(
      this.dataSource,
      sql`UPDATE webhook_deliveries SET seq = seq + 1, next_attempt_at = now(), updated_at = now()
        WHERE id IN (SELECT d.id FROM webhook_deliveries d
                      WHERE d.status = 'pending' AND d.next_attempt_at < now() - make_interval(secs => ${slackSeconds})
                        AND NOT ${undispatchedOutboxRow('webhook.deliver', currentJob)}
                      ORDER BY d.next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, seq`,
    );
  }
}
