import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { jobSpec, QueueProducer, SweeperService } from '#queues';
import { WebhookDeliveryRepository } from './persistence/webhook-delivery.repository.js';

const BATCH = 200;

/**
 * Rebuilds lost delivery jobs from PostgreSQL (Redis may delay work, never lose it): a pending
 * delivery overdue by more than two sweep intervals plus the longest attempt, with no undispatched outbox row, gets a new
 * job generation (seq + 1), which makes any old job for it stale. Delivery is at least once, so a
 * sweep racing a slow attempt at worst sends the event twice; receivers dedupe on the event id.
 */
@Injectable()
export class WebhookSweeper extends SweeperService {
  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly producer: QueueProducer,
    private readonly config: GatewayEnv,
  ) {
    super(WebhookSweeper.name, 'Webhook sweep', () => config.WEBHOOK_SWEEP_INTERVAL_MS);
  }

  override async sweep(): Promise<number> {
    // Past its due time by more than an attempt can take (connect + response timeouts) plus two
    // sweeps: an attempt still in flight is never rebuilt under it, so a slow receiver is not sent duplicates.
    const slackSeconds = (2 * this.config.WEBHOOK_SWEEP_INTERVAL_MS + this.config.WEBHOOK_CONNECT_TIMEOUT_MS + this.config.WEBHOOK_RESPONSE_TIMEOUT_MS) / 1000;
    const rows = await this.deliveries.overdueToRebuild(slackSeconds, BATCH);
    for (const row of rows) await this.producer.add(jobSpec('webhook.deliver', { deliveryId: row.id, seq: row.seq }));
    if (rows.length > 0) this.logger.warn({ deliveries: rows.length }, 'Re-enqueued webhook deliveries from PostgreSQL');
    return rows.length;
  }
}
