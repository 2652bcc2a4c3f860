import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec, JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';
import { endpointSecretContext } from './webhook-endpoints.service.js';
import { retryDelayMs } from './webhook-retry-schedule.js';
import { sendWebhook, type SendResult } from './webhook-sender.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  seq: number;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_active: boolean;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  data: unknown;
}

/**
 * One attempt of one delivery. At least once: the attempt is recorded only after the POST, so a
 * worker killed mid-POST leaves the row as it was and the job (BullMQ stall recovery) or the
 * sweeper sends it again. A job whose seq is not the row's current one is stale (the sweeper or a
 * recorded attempt moved on) and does nothing. A receiver's failure is not a job failure: it is
 * logged on the row and the next attempt is put in the outbox with its delay, in one transaction.
 */
@Injectable()
export class WebhookDeliveryHandler implements JobHandler<'webhook.deliver'>, OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveryHandler.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly encryption: FieldEncryption,
    private readonly config: GatewayEnv,
    private readonly registry: JobHandlerRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register('webhook.deliver', this);
  }

  async handle(job: Job<JobPayloads['webhook.deliver']>): Promise<void> {
    await this.deliver(job.data.deliveryId, job.data.seq);
  }

  /** A job that failed for good (database down through all its retries): the sweeper rebuilds it from the row. */
  async onFinalFailure(job: Job<JobPayloads['webhook.deliver']>, error: Error): Promise<void> {
    this.logger.error({ deliveryId: job.data.deliveryId, err: error.message }, 'Webhook delivery job failed for good; the sweeper will rebuild it');
  }

  async deliver(deliveryId: string, seq: number): Promise<'stale' | 'delivered' | 'retry' | 'failed' | 'cancelled'> {
    const [row] = (await this.dataSource.query(
      `SELECT d.id, d.status, d.attempts, d.seq, d.endpoint_id, p.url, p.enabled, p.deleted_at, p.secret_encrypted,
              p.previous_secret_encrypted, (p.previous_secret_expires_at > now()) AS previous_active,
              e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.data
         FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id JOIN webhook_events e ON e.id = d.event_id
        WHERE d.id = $1`,
      [deliveryId],
    )) as DeliveryRow[];
    if (!row || row.status !== 'pending' || row.seq !== seq) return 'stale';
    if (!row.enabled || row.deleted_at !== null) {
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'endpoint disabled', updated_at = now()
          WHERE id = $1 AND seq = $2 AND status = 'pending'`,
        [deliveryId, seq],
      );
      return 'cancelled';
    }
    const secrets = [this.encryption.decrypt(row.secret_encrypted, endpointSecretContext(row.endpoint_id))];
    if (row.previous_active && row.previous_secret_encrypted) secrets.push(this.encryption.decrypt(row.previous_secret_encrypted, endpointSecretContext(row.endpoint_id)));
    // The body is fixed per event (same bytes on every attempt); the signature's timestamp is per attempt.
    const body = JSON.stringify({ id: row.event_id, type: row.event_type, created_at: new Date(row.event_created_at).toISOString(), data: row.data });
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await sendWebhook(
      row.url,
      {
        [SIGNATURE_HEADER]: signatureHeader(secrets, timestamp, body),
        'Gateway-Event-Id': row.event_id,
        'Gateway-Event-Type': row.event_type,
        'Gateway-Delivery-Id': row.id,
      },
      body,
      { production: this.config.isProduction, connectTimeoutMs: this.config.WEBHOOK_CONNECT_TIMEOUT_MS, responseTimeoutMs: this.config.WEBHOOK_RESPONSE_TIMEOUT_MS },
    );
    return this.recordAttempt(row, result);
  }

  private async recordAttempt(row: DeliveryRow, result: SendResult): Promise<'stale' | 'delivered' | 'retry' | 'failed'> {
    const attempt = row.attempts + 1;
    const ok = result.httpStatus !== null && result.httpStatus >= 200 && result.httpStatus < 300;
    const error = ok ? null : (result.error ?? `HTTP ${result.httpStatus}`);
    const outcome = ok ? 'delivered' : attempt >= this.config.WEBHOOK_MAX_ATTEMPTS ? 'failed' : 'retry';
    const delayMs = retryDelayMs(attempt + 1, this.config.WEBHOOK_RETRY_BASE_MS, this.config.WEBHOOK_RETRY_MAX_DELAY_MS);
    return this.dataSource.transaction(async (manager) => {
      // Guarded by seq and status: a racing duplicate of this job (stall recovery) records nothing twice.
      const [updated] = (await manager.query(
        `UPDATE webhook_deliveries SET attempts = $3, last_http_status = $4, last_error = $5, updated_at = now(),
                status = CASE WHEN $6 = 'delivered' THEN 'delivered' WHEN $6 = 'failed' THEN 'failed' ELSE 'pending' END,
                delivered_at = CASE WHEN $6 = 'delivered' THEN now() END,
                seq = CASE WHEN $6 = 'retry' THEN seq + 1 ELSE seq END,
                next_attempt_at = CASE WHEN $6 = 'retry' THEN now() + make_interval(secs => $7::double precision / 1000) END
          WHERE id = $1 AND seq = $2 AND status = 'pending' RETURNING seq, next_attempt_at`,
        [row.id, row.seq, attempt, result.httpStatus, error, outcome, delayMs],
      )) as [{ seq: number; next_attempt_at: Date | null }[], number];
      if (updated.length === 0) return 'stale';
      await manager.query(`INSERT INTO webhook_delivery_attempts (delivery_id, attempt, http_status, error, duration_ms) VALUES ($1, $2, $3, $4, $5)`, [
        row.id,
        attempt,
        result.httpStatus,
        error,
        result.durationMs,
      ]);
      if (outcome === 'retry') {
        const next = updated[0];
        await enqueueInTransaction(manager, jobSpec('webhook.deliver', { deliveryId: row.id, seq: next.seq }), new Date(next.next_attempt_at!));
      }
      const log = { deliveryId: row.id, eventType: row.event_type, attempt, httpStatus: result.httpStatus, error };
      if (outcome === 'delivered') this.logger.log(log, 'Webhook delivered');
      else this.logger.warn(log, outcome === 'failed' ? 'Webhook delivery gave up after its last attempt' : 'Webhook attempt failed; retry scheduled');
      return outcome;
    });
  }
}
