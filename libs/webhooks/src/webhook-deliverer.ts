import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec } from '#queues';
import { WebhookDeliveryRepository, type WebhookAttempt } from './persistence/webhook-delivery.repository.js';
import { endpointSecretContext } from './webhook-endpoints.service.js';
import { retryDelayMs } from './webhook-retry-schedule.js';
import { sendWebhook, type SendResult } from './webhook-sender.js';
import { WEBHOOK_HOST_RESOLVER, type WebhookHostResolver } from './webhook-url-guard.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

/**
 * One attempt of one delivery. At least once: the attempt is recorded only after the POST, so a
 * worker killed mid-POST leaves the row as it was and the job (BullMQ stall recovery) or the
 * sweeper sends it again. A job whose seq is not the row's current one is stale (the sweeper or a
 * recorded attempt moved on) and does nothing. A receiver's failure is not a job failure: it is
 * logged on the row and the next attempt is put in the outbox with its delay, in one transaction.
 * The worker's job handler for `webhook.deliver` calls it.
 */
@Injectable()
export class WebhookDeliverer {
  private readonly logger = new Logger(WebhookDeliverer.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly encryption: FieldEncryption,
    private readonly config: GatewayEnv,
    @Inject(WEBHOOK_HOST_RESOLVER) private readonly resolve: WebhookHostResolver,
  ) {}

  async deliver(deliveryId: string, seq: number): Promise<'stale' | 'delivered' | 'retry' | 'failed' | 'cancelled'> {
    const row = await this.deliveries.forAttempt(deliveryId);
    if (!row || row.status !== 'pending' || row.seq !== seq) return 'stale';
    if (!row.enabled || row.deletedAt !== null) {
      await this.deliveries.cancelForDisabledEndpoint(deliveryId, seq);
      return 'cancelled';
    }
    const secrets = [this.encryption.decrypt(row.secretEncrypted, endpointSecretContext(row.endpointId))];
    if (row.previousActive && row.previousSecretEncrypted) secrets.push(this.encryption.decrypt(row.previousSecretEncrypted, endpointSecretContext(row.endpointId)));
    // The body is fixed per event (same bytes on every attempt); the signature's timestamp is per attempt.
    const body = JSON.stringify({ id: row.eventId, type: row.eventType, created_at: new Date(row.eventCreatedAt).toISOString(), data: row.data });
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await sendWebhook(
      row.url,
      {
        [SIGNATURE_HEADER]: signatureHeader(secrets, timestamp, body),
        'Gateway-Event-Id': row.eventId,
        'Gateway-Event-Type': row.eventType,
        'Gateway-Delivery-Id': row.id,
      },
      body,
      { production: this.config.isProduction, connectTimeoutMs: this.config.WEBHOOK_CONNECT_TIMEOUT_MS, responseTimeoutMs: this.config.WEBHOOK_RESPONSE_TIMEOUT_MS, resolve: this.resolve },
    );
    return this.recordAttempt(row, result);
  }

  private async recordAttempt(row: WebhookAttempt, result: SendResult): Promise<'stale' | 'delivered' | 'retry' | 'failed'> {
    const attempt = row.attempts + 1;
    const ok = result.httpStatus !== null && result.httpStatus >= 200 && result.httpStatus < 300;
    const error = ok ? null : (result.error ?? `HTTP ${result.httpStatus}`);
    const outcome = ok ? 'delivered' : attempt >= this.config.WEBHOOK_MAX_ATTEMPTS ? 'failed' : 'retry';
    const delayMs = retryDelayMs(attempt + 1, this.config.WEBHOOK_RETRY_BASE_MS, this.config.WEBHOOK_RETRY_MAX_DELAY_MS);
    return this.dataSource.transaction(async (manager) => {
      // Guarded by seq and status: a racing duplicate of this job (stall recovery) records nothing twice.
      const next = await this.deliveries.recordAttempt(manager, {
        deliveryId: row.id,
        seq: row.seq,
        attempt,
        httpStatus: result.httpStatus,
        error,
        durationMs: result.durationMs,
        outcome,
        delayMs,
      });
      if (!next) return 'stale';
      if (outcome === 'retry') {
        await enqueueInTransaction(manager, jobSpec('webhook.deliver', { deliveryId: row.id, seq: next.seq }), new Date(next.next_attempt_at!));
      }
      const log = { deliveryId: row.id, eventType: row.eventType, attempt, httpStatus: result.httpStatus, error };
      if (outcome === 'delivered') this.logger.log(log, 'Webhook delivered');
      else this.logger.warn(log, outcome === 'failed' ? 'Webhook delivery gave up after its last attempt' : 'Webhook attempt failed; retry scheduled');
      return outcome;
    });
  }
}
