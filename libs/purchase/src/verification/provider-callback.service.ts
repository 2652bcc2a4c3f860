import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec } from '#queues';
import { isUuid } from '../model/uuid-pattern.js';
import { callbackTokenMatches } from '../model/callback-token.js';

export interface CallbackReceipt {
  received: true;
}

/**
 * The provider's callback is a hint. A valid one leaves a durable marker and, unless a
 * verification from an earlier marker is still waiting, enqueues one verification job (through
 * the outbox, in the same database transaction). It never changes a transaction's status.
 */
@Injectable()
export class ProviderCallbackService {
  private readonly logger = new Logger(ProviderCallbackService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: GatewayEnv,
  ) {}

  /** Constant-time check against the current token and, during a rotation, the previous one. */
  accepts(token: string | undefined): boolean {
    return callbackTokenMatches(token, [this.config.CALLBACK_TOKEN, this.config.CALLBACK_TOKEN_PREVIOUS]);
  }

  async receive(body: unknown): Promise<CallbackReceipt> {
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const transactionId = await this.transactionIdOf(record);
    if (!transactionId) {
      this.logger.warn('Callback for no transaction we hold; nothing scheduled');
      return { received: true };
    }
    const hint = typeof record.status === 'string' ? record.status.slice(0, 40) : null;
    await this.dataSource.transaction(async (manager) => {
      // Serialises callbacks of one transaction, so a burst yields exactly one waiting job.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('purchase-callback:' || $1))`, [transactionId]);
      const [marker] = await manager.query(
        `INSERT INTO purchase_callback_markers (transaction_id, provider_status_hint) VALUES ($1, $2) RETURNING id`,
        [transactionId, hint],
      );
      const [waiting] = await manager.query(
        `SELECT 1 FROM purchase_callback_markers WHERE transaction_id = $1 AND processed_at IS NULL AND id < $2 LIMIT 1`,
        [transactionId, marker.id],
      );
      if (!waiting) {
        // The job id names the first open marker, so a burst of callbacks makes one job.
        await enqueueInTransaction(manager, jobSpec('purchase.verify', { transactionId, reason: 'callback', marker: String(marker.id) }));
      }
    });
    return { received: true };
  }

  /** Our id comes back as the provider's external id; the provider's own id is a fallback. */
  private async transactionIdOf(record: Record<string, unknown>): Promise<string | null> {
    if (isUuid(record.external_id)) {
      const [row] = await this.dataSource.query(`SELECT id FROM purchase_transactions WHERE id = $1`, [record.external_id.toLowerCase()]);
      if (row) return row.id;
    }
    const providerId = record.transaction_id;
    if (typeof providerId === 'number' && Number.isSafeInteger(providerId) && providerId > 0) {
      const [row] = await this.dataSource.query(`SELECT id FROM purchase_transactions WHERE provider_transaction_id = $1`, [providerId]);
      if (row) return row.id;
    }
    return null;
  }
}
