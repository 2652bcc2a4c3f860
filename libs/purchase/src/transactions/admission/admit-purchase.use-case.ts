import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { johannesburgDayOf, NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { centsFromDbValue } from '#money';
import { enqueueInTransaction } from '#queues';
import { IdempotencyConflictError } from '../../idempotency/idempotency.errors.js';
import { PricingUnpublishedError } from '../../pricing/pricing.errors.js';
import { PricingService } from '../../pricing/pricing.service.js';
import { ProviderNotConfiguredForPurchasesError } from '../../provider/provider-failure.errors.js';
import { PurchaseReadiness } from '../../provider/purchase-readiness.js';
import { QuoteAlreadyUsedError, QuoteExpiredError } from '../../quotes/quote.errors.js';
import { VendorNotReleasedError } from '../../spend-controls/spend-control.errors.js';
import { SpendControlsService } from '../../spend-controls/spend-controls.service.js';
import { REFERENCE_PATTERN, TransactionQueryService } from '../transaction-query.service.js';
import type { TransactionView } from '../transaction-view.js';

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

interface LockedQuote {
  id: string;
  product_id: number;
  pricing_version_id: number;
  charge_cents: string;
  wholesale_cents: string;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  identifiers: unknown;
  expires_at: Date;
  used_at: Date | null;
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
    private readonly pricing: PricingService,
    private readonly transactions: TransactionQueryService,
  ) {}

  async execute(vendorId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const key = request.idempotencyKey;
    if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ValidationFailedError({
        'Idempotency-Key': ['header is required: 1 to 128 letters, digits or the characters _ . : -'],
      });
    }
    try {
      return await this.dataSource.transaction('READ COMMITTED', (manager) => this.admit(manager, vendorId, key, request));
    } catch (error) {
      throw translateConstraintViolation(error);
    }
  }

  private async admit(manager: EntityManager, vendorId: string, key: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const transactionId = randomUUID();
    // A concurrent request with the same key blocks here until the first commits or rolls back.
    const claimed = await manager.query(
      `INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING transaction_id`,
      [vendorId, key, request.quoteId, request.reference, transactionId],
    );
    if (claimed.length === 0) return this.replay(manager, vendorId, key, request);

    const [referenceTaken] = await manager.query(`SELECT 1 FROM purchase_transactions WHERE vendor_id = $1 AND reference = $2`, [
      vendorId,
      request.reference,
    ]);
    if (referenceTaken) throw new IdempotencyConflictError('The reference belongs to a purchase made with another Idempotency-Key');

    const missing = this.readiness.missing();
    if (this.config.isProduction && missing.length > 0) {
      this.logger.error({ missing }, 'Purchases refused: production configuration incomplete');
      throw new ProviderNotConfiguredForPurchasesError();
    }

    const [{ now }] = (await manager.query(`SELECT now() AS now`)) as { now: Date }[];
    const [quote] = (await manager.query(
      `SELECT id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount,
              destination_unit, identifiers, expires_at, used_at
         FROM purchase_quotes WHERE id = $1 AND vendor_id = $2 FOR UPDATE`,
      [request.quoteId, vendorId],
    )) as LockedQuote[];
    if (!quote) throw new NotFoundError('quote');
    if (quote.used_at) throw new QuoteAlreadyUsedError();
    if (new Date(quote.expires_at).getTime() <= new Date(now).getTime()) throw new QuoteExpiredError();

    const controls = await this.spendControls.lockForAdmission(manager, vendorId);
    if (!(await this.pricing.currentVersion(manager))) throw new PricingUnpublishedError();
    if (this.config.isProduction) {
      const [vendor] = await manager.query(`SELECT production_released_at FROM vendors WHERE id = $1`, [vendorId]);
      if (!vendor?.production_released_at) throw new VendorNotReleasedError();
    }
    const charge = centsFromDbValue(quote.charge_cents);
    this.spendControls.checkTransactionMaximum(controls, charge);
    await this.spendControls.checkVelocity(manager, vendorId, controls, new Date(now));
    const day = johannesburgDayOf(new Date(now));
    await this.spendControls.consumeDailyAllowance(manager, vendorId, day, controls, charge);

    await manager.query(`UPDATE purchase_quotes SET used_at = $2 WHERE id = $1`, [quote.id, now]);
    await manager.query(
      `INSERT INTO purchase_transactions (id, vendor_id, reference, quote_id, product_id, pricing_version_id, status, charge_cents,
         wholesale_cents, currency, destination_amount, destination_unit, identifiers, admission_day, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $14)`,
      [
        transactionId,
        vendorId,
        request.reference,
        quote.id,
        quote.product_id,
        quote.pricing_version_id,
        quote.charge_cents,
        quote.wholesale_cents,
        quote.currency,
        quote.destination_amount,
        quote.destination_unit,
        JSON.stringify(quote.identifiers),
        day,
        now,
      ],
    );
    await manager.query(
      `INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, reason) VALUES ($1, NULL, 'pending', 'admitted')`,
      [transactionId],
    );
    await enqueueInTransaction(manager, 'purchase.submit', `submit.${transactionId}`, { transactionId });
    return { transaction: await this.transactions.get(vendorId, transactionId, manager), replayed: false };
  }

  private async replay(manager: EntityManager, vendorId: string, key: string, request: PurchaseRequest): Promise<AdmissionResult> {
    const [stored] = await manager.query(
      `SELECT quote_id, reference, transaction_id FROM purchase_idempotency_keys WHERE vendor_id = $1 AND idempotency_key = $2`,
      [vendorId, key],
    );
    if (stored.quote_id !== request.quoteId || stored.reference !== request.reference) {
      throw new IdempotencyConflictError('The Idempotency-Key was used with another quote or reference');
    }
    return { transaction: await this.transactions.get(vendorId, stored.transaction_id, manager), replayed: true };
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
