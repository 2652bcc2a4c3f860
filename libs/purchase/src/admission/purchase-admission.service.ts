import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { ProviderNotConfiguredForPurchasesError } from '../model/purchase-errors.js';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import { AdmissionClock } from './admission-clock.js';
import type { TransactionValidation, TransactionView } from '../model/transaction-view.js';
import { REFERENCE_PATTERN } from '../model/transaction-reference.js';
import type { AdmissionRequest } from '../persistence/admission-statement.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';

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
export class PurchaseAdmissionService {
  private readonly logger = new Logger(PurchaseAdmissionService.name);

  constructor(
    private readonly config: GatewayEnv,
    private readonly readiness: PurchaseReadiness,
    private readonly transactions: TransactionRepository,
    private readonly clock: AdmissionClock,
  ) {}

  async admit(vendorId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    return this.admitWith(vendorId, request, async (admission) => {
      const transaction = await this.transactions.admit(admission);
      if (!transaction) throw new NotFoundError('transaction');
      return { transaction, replayed: transaction.id !== admission.transactionId };
    });
  }

  /**
   * POST /transactions/validate: execute's checks and its statement, purchase_admit itself, in a
   * transaction that is rolled back (TransactionRepository.admitRolledBack says why this rather
   * than a read-only copy of the checks): every refusal is the real call's, and nothing commits.
   * A real call made afterwards can still be refused if the quote, the limits or the day's
   * allowance changed in between.
   */
  async validate(vendorId: string, request: PurchaseRequest): Promise<TransactionValidation> {
    return this.admitWith(vendorId, request, async (admission) => {
      const tried = await this.transactions.admitRolledBack(admission);
      if (!tried) throw new NotFoundError('transaction');
      const { transaction, left } = tried;
      return {
        outcome: left ? 'create' : 'replay',
        reference: transaction.reference,
        quote_id: transaction.quote_id,
        product_id: transaction.product_id,
        charge_minor: transaction.charge_minor,
        currency: transaction.currency,
        destination_amount: transaction.destination_amount,
        destination_unit: transaction.destination_unit,
        transaction: left ? null : transaction,
        remaining_today_minor: left?.remainingTodayMinor ?? null,
        velocity_remaining: left?.velocityRemaining ?? null,
      };
    });
  }

  /** The key check and the production readiness, then `admit` with the statement's request: shared by the real call and its dry run. */
  private async admitWith<T>(vendorId: string, request: PurchaseRequest, admit: (admission: AdmissionRequest) => Promise<T>): Promise<T> {
    const key = request.idempotencyKey;
    if (key === undefined || !REFERENCE_PATTERN.test(key)) {
      throw new ValidationFailedError({
        'Idempotency-Key': ['header is required: 1 to 128 letters, digits or the characters _ . : -'],
      });
    }
    // Production refuses purchases while its configuration is incomplete: after the key and the
    // reference checks, as before, so a replay is still answered.
    const missing = this.config.isProduction ? this.readiness.missing() : [];
    try {
      return await admit({
        transactionId: randomUUID(),
        vendorId,
        idempotencyKey: key,
        quoteId: request.quoteId,
        reference: request.reference,
        instant: this.clock.instant(),
        production: this.config.isProduction,
        unready: missing.length > 0,
      });
    } catch (error) {
      if (error instanceof ProviderNotConfiguredForPurchasesError) this.logger.error({ missing }, 'Purchases refused: production configuration incomplete');
      throw error;
    }
  }
}
