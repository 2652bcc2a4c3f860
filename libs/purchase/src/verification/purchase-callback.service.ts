import { Injectable, Logger } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { isUuid } from '../model/uuid-pattern.js';
import { TransactionEvidenceRepository } from '../persistence/transaction-evidence.repository.js';
import { callbackTokenMatches } from '../model/callback-token.js';

export interface CallbackReceipt {
  received: true;
}

/**
 * The provider's callback is a hint. A valid one leaves a durable marker
 * (TransactionEvidenceRepository.addCallbackMarker), which the worker claims and answers with a
 * lookup (PurchaseCallbackClaimsService). It never changes a transaction's status.
 */
@Injectable()
export class PurchaseCallbackService {
  private readonly logger = new Logger(PurchaseCallbackService.name);

  constructor(
    private readonly config: GatewayEnv,
    private readonly transactions: TransactionEvidenceRepository,
  ) {}

  /** Constant-time check against the current token and, during a rotation, the previous one. */
  accepts(token: string | undefined): boolean {
    return callbackTokenMatches(token, [this.config.CALLBACK_TOKEN, this.config.CALLBACK_TOKEN_PREVIOUS]);
  }

  async receive(body: unknown): Promise<CallbackReceipt> {
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    // Our id comes back as the provider's external id; the provider's own id is a fallback.
    const externalId = isUuid(record.external_id) ? record.external_id.toLowerCase() : null;
    const providerId = typeof record.transaction_id === 'number' && Number.isSafeInteger(record.transaction_id) && record.transaction_id > 0 ? record.transaction_id : null;
    if (externalId === null && providerId === null) return this.nothingScheduled();
    const hint = typeof record.status === 'string' ? record.status.slice(0, 40) : null;
    // The id lookup and the marker are one statement.
    return (await this.transactions.addCallbackMarker(externalId, providerId, hint)) ? { received: true } : this.nothingScheduled();
  }

  private nothingScheduled(): CallbackReceipt {
    this.logger.warn('Callback for no transaction we hold; nothing scheduled');
    return { received: true };
  }
}
