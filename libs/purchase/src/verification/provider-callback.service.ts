import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayEnv } from '#config';
import { enqueueInTransaction, jobSpec } from '#queues';
import { isUuid } from '../model/uuid-pattern.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';
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
    private readonly transactions: TransactionsRepository,
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
      // Serialised per transaction (an advisory lock held to commit), so a burst yields exactly one waiting job.
      const marker = await this.transactions.addCallbackMarker(manager, transactionId, hint);
      if (!marker.earlierOpen) {
        // The job id names the first open marker, so a burst of callbacks makes one job.
        await enqueueInTransaction(manager, jobSpec('purchase.verify', { transactionId, reason: 'callback', marker: marker.markerId }));
      }
    });
    return { received: true };
  }

  /** Our id comes back as the provider's external id; the provider's own id is a fallback. */
  private async transactionIdOf(record: Record<string, unknown>): Promise<string | null> {
    if (isUuid(record.external_id)) {
      const id = await this.transactions.idOf(record.external_id.toLowerCase());
      if (id) return id;
    }
    const providerId = record.transaction_id;
    if (typeof providerId === 'number' && Number.isSafeInteger(providerId) && providerId > 0) {
      const id = await this.transactions.idByProviderTransactionId(providerId);
      if (id) return id;
    }
    return null;
  }
}
