import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { DomainError, johannesburgDayOf, NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { centsFromDbValue } from '#money';
import { IdempotencyConflictError } from '../model/idempotency.errors.js';
import { PricingUnpublishedError } from '../model/pricing.errors.js';
import { ProviderNotConfiguredForPurchasesError } from '../model/provider-failure.errors.js';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import { QuoteAlreadyUsedError, QuoteExpiredError } from '../model/quote.errors.js';
import { VendorNotReleasedError } from '../model/spend-control.errors.js';
import { SpendControlsService } from './spend-controls.service.js';
import { AdmissionClock } from './admission-clock.js';
import type { TransactionView } from '../model/transaction-view.js';
import { REFERENCE_PATTERN } from '../model/transaction-reference.js';
import { IdempotencyKeysRepository } from '../persistence/idempotency-keys.repository.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';

export const IDEMPOTENCY_KEY_PATTERN = REFERENCE_PATTERN;

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
 * POST /transactions: everything in ONE database transaction, so the 202 means the purchase,
 * its allowance and its submission intent (outbox row) are all committed, or none is.
 *
 * Order matters: the idempotency record comes first (a replay is answered before any pause,
 * expiry or spend check), then the quote lock, then the vendor's spend-controls lock, which
 * serialises one vendor's admissions so velocity and the daily cap are exact.
 */
@Injectable()
export class AdmitPurchaseUseCase {
  private readonly logger = new Logger(AdmitPurchaseUseCase.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: GatewayEnv,
    private readonly readiness: PurchaseReadiness,
    private readonly spendControls: SpendControlsService,
    private readonly transactions: TransactionsRepository,
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly clock: AdmissionClock,
  ) {}

  async execute(vendorId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const key = request.idempotencyKey;
    if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ValidationFailedError({
        'Idempotency-Key': ['header is required: 1 to 128 letters, digits or the characters _ . : -'],
      });
    }
    try {
      // READ COMMITTED, pinned on every connection (libs/database data-source-options): each
      // statement sees what committed before it, after the locks it waited for.
      return await this.dataSource.transaction((manager) => this.admit(manager, vendorId, key, request));
    } catch (error) {
      throw translateConstraintViolation(error);
    }
  }

  private async admit(manager: EntityManager, vendorId: string, key: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const transactionId = randomUUID();
    // A concurrent request with the same key blocks here until the first commits or rolls back.
    const claimed = await this.idempotencyKeys.claim(manager, vendorId, key, { quote_id: request.quoteId, reference: request.reference, transaction_id: transactionId });
    if (!claimed) return this.replay(manager, vendorId, key, request);
    try {
      return await this.admitClaimed(manager, vendorId, transactionId, request);
    } catch (error) {
      // The reference check below reads in the quote statement's snapshot, taken BEFORE that
      // statement waited for the quote's lock: a concurrent purchase with the same quote and
      // reference under another key commits while we wait, and we would answer
      // QUOTE_ALREADY_USED where a sequential request gets IDEMPOTENCY_CONFLICT. A refusal
      // therefore re-reads the reference in a fresh statement (after every lock we took) and
      // answers what a sequential request would. Only refusals pay this extra round trip.
      if (error instanceof DomainError && !(error instanceof IdempotencyConflictError) && (await this.transactions.referenceTaken(manager, vendorId, request.reference))) {
        throw new IdempotencyConflictError('The reference belongs to a purchase made with another Idempotency-Key');
      }
      throw error;
    }
  }

  private async admitClaimed(manager: EntityManager, vendorId: string, transactionId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const quote = await this.transactions.lockQuoteForAdmission(manager, vendorId, request.quoteId, request.reference, this.clock.instant()?.toISOString() ?? null);
    const referenceTaken = quote ? quote.reference_taken : await this.transactions.referenceTaken(manager, vendorId, request.reference);
    if (referenceTaken) throw new IdempotencyConflictError('The reference belongs to a purchase made with another Idempotency-Key');

    const missing = this.readiness.missing();
    if (this.config.isProduction && missing.length > 0) {
      this.logger.error({ missing }, 'Purchases refused: production configuration incomplete');
      throw new ProviderNotConfiguredForPurchasesError();
    }

    if (!quote) throw new NotFoundError('quote');
    const now = new Date(quote.now);
    if (quote.used_at) throw new QuoteAlreadyUsedError();
    if (new Date(quote.expires_at).getTime() <= now.getTime()) throw new QuoteExpiredError();

    const controls = await this.spendControls.lockForAdmission(manager, vendorId);
    if (!quote.pricing_published) throw new PricingUnpublishedError();
    if (this.config.isProduction && !quote.vendor_released_at) throw new VendorNotReleasedError();
    const charge = centsFromDbValue(quote.charge_cents);
    this.spendControls.checkTransactionMaximum(controls, charge);
    const day = johannesburgDayOf(now);
    // Velocity, then the daily allowance: one round trip while both pass.
    await this.spendControls.checkVelocityAndConsumeAllowance(manager, vendorId, controls, now, day, charge);

    // The quote's use, the transaction, its first status event and its submission intent (its
    // outbox row) in one statement.
    const transaction = await this.transactions.admit(manager, { transactionId, vendorId, reference: request.reference, quote, day, now });
    return { transaction, replayed: false };
  }

  private async replay(manager: EntityManager, vendorId: string, key: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const stored = await this.idempotencyKeys.find(manager, vendorId, key);
    if (stored.quote_id !== request.quoteId || stored.reference !== request.reference) {
      throw new IdempotencyConflictError('The Idempotency-Key was used with another quote or reference');
    }
    const transaction = await this.transactions.view(vendorId, stored.transaction_id, manager);
    if (!transaction) throw new NotFoundError('transaction');
    return { transaction, replayed: true };
  }
}

/** A unique index is the last line of defence behind the checks above; its violation keeps a stable code. */
function translateConstraintViolation(error: unknown): unknown {
  if (error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === '23505') {
    const constraint = (error.driverError as { constraint?: string }).constraint;
    if (constraint === 'purchase_transactions_quote_key') return new QuoteAlreadyUsedError();
    if (constraint === 'purchase_transactions_vendor_reference_key') {
      return new IdempotencyConflictError('The reference belongs to a purchase made with another Idempotency-Key');
    }
  }
  return error;
}
