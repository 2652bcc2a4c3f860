import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { ProviderNotConfiguredForPurchasesError } from '../model/purchase-errors.js';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import { AdmissionClock } from './admission-clock.js';
import type { TransactionView } from '../model/transaction-view.js';
import { REFERENCE_PATTERN } from '../model/transaction-reference.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';

export interface PurchaseRequest {
  idempotencyKey: string | undefined;
  quoteId: string;
  reference: string;
}

export interface AdmissionResult {
  transaction: TransactionView;
  /** True when this answered an exact replay of an accepted request. */
  replayed: boolean;
}

/**
 * POST /transactions: ONE statement, so the 202 means the purchase, its allowance and its
 * submission intent (outbox row) are all committed, or none is (a refusal rolls back the key
 * claim too).
 *
 * Order matters, and the statement (purchase_admit, migration 1763781500000) keeps it: the
 * idempotency record comes first (a replay is answered before any pause, expiry or spend check),
 * then the quote lock and the quote's checks, then the vendor's spend-controls lock, which
 * serialises one vendor's admissions so velocity and the daily cap are exact, the pause,
 * pricing, release and per-transaction checks, the velocity count, the daily allowance, and the
 * writes.
 */
@Injectable()
export class AdmitPurchaseUseCase {
  private readonly logger = new Logger(AdmitPurchaseUseCase.name);

  constructor(
    private readonly config: GatewayEnv,
    private readonly readiness: PurchaseReadiness,
    private readonly transactions: TransactionsRepository,
    private readonly clock: AdmissionClock,
  ) {}

  async execute(vendorId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const key = request.idempotencyKey;
    if (key === undefined || !REFERENCE_PATTERN.test(key)) {
      throw new ValidationFailedError({
        'Idempotency-Key': ['header is required: 1 to 128 letters, digits or the characters _ . : -'],
      });
    }
    // Production refuses purchases while its configuration is incomplete: after the key and the
    // reference checks, as before, so a replay is still answered.
    const missing = this.config.isProduction ? this.readiness.missing() : [];
    const transactionId = randomUUID();
    try {
      const transaction = await this.transactions.admit({
        transactionId,
        vendorId,
        idempotencyKey: key,
        quoteId: request.quoteId,
        reference: request.reference,
        instant: this.clock.instant(),
        production: this.config.isProduction,
        unready: missing.length > 0,
      });
      if (!transaction) throw new NotFoundError('transaction');
      return { transaction, replayed: transaction.id !== transactionId };
    } catch (error) {
      if (error instanceof ProviderNotConfiguredForPurchasesError) this.logger.error({ missing }, 'Purchases refused: production configuration incomplete');
      throw error;
    }
  }
}
