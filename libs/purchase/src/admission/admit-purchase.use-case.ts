import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { DomainError, johannesburgDayOf, NotFoundError, ValidationFailedError } from '#common';
import { GatewayEnv } from '#config';
import { centsFromDbValue } from '#money';
import { jobSpec, outboxBindValues, outboxRowsFrom } from '#queues';
import { IdempotencyConflictError } from '../model/idempotency.errors.js';
import { PricingUnpublishedError } from '../model/pricing.errors.js';
import { ProviderNotConfiguredForPurchasesError } from '../model/provider-failure.errors.js';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import { QuoteAlreadyUsedError, QuoteExpiredError } from '../model/quote.errors.js';
import { VendorNotReleasedError } from '../model/spend-control.errors.js';
import { SpendControlsService } from './spend-controls.service.js';
import { REFERENCE_PATTERN, TransactionQueryService } from '../reports/transaction-query.service.js';
import { AdmissionClock } from './admission-clock.js';
import { TRANSACTION_VIEW_COLUMNS, transactionViewOf, type TransactionView, type TransactionViewRow } from '../model/transaction-view.js';

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
  now: Date;
  reference_taken: boolean;
  pricing_published: boolean;
  vendor_released_at: Date | null;
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
    private readonly transactions: TransactionQueryService,
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
    const claimed = await manager.query(
      `INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING transaction_id`,
      [vendorId, key, request.quoteId, request.reference, transactionId],
    );
    if (claimed.length === 0) return this.replay(manager, vendorId, key, request);
    try {
      return await this.admitClaimed(manager, vendorId, transactionId, request);
    } catch (error) {
      // The reference check below reads in the quote statement's snapshot, taken BEFORE that
      // statement waited for the quote's lock: a concurrent purchase with the same quote and
      // reference under another key commits while we wait, and we would answer
      // QUOTE_ALREADY_USED where a sequential request gets IDEMPOTENCY_CONFLICT. A refusal
      // therefore re-reads the reference in a fresh statement (after every lock we took) and
      // answers what a sequential request would. Only refusals pay this extra round trip.
      if (error instanceof DomainError && !(error instanceof IdempotencyConflictError) && (await this.referenceTaken(manager, vendorId, request.reference))) {
        throw new IdempotencyConflictError('The reference belongs to a purchase made with another Idempotency-Key');
      }
      throw error;
    }
  }

  private async admitClaimed(manager: EntityManager, vendorId: string, transactionId: string, request: PurchaseRequest): Promise<AdmissionResult> {
    // One round trip for the quote (locked), the database clock and the facts checked below in
    // their documented order; each round trip is paid by every purchase (docs/BENCHMARKS.md).
    const [quote] = (await manager.query(
      `SELECT id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount,
              destination_unit, identifiers, expires_at, used_at, COALESCE($4::timestamptz, now()) AS now,
              EXISTS (SELECT 1 FROM purchase_transactions t WHERE t.vendor_id = $2 AND t.reference = $3) AS reference_taken,
              EXISTS (SELECT 1 FROM purchase_pricing_versions) AS pricing_published,
              (SELECT production_released_at FROM vendors v WHERE v.id = $2) AS vendor_released_at
         FROM purchase_quotes WHERE id = $1 AND vendor_id = $2 FOR UPDATE`,
      [request.quoteId, vendorId, request.reference, this.clock.instant()?.toISOString() ?? null],
    )) as LockedQuote[];
    const referenceTaken = quote ? quote.reference_taken : await this.referenceTaken(manager, vendorId, request.reference);
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
    await this.spendControls.checkVelocity(manager, vendorId, controls, now);
    const day = johannesburgDayOf(now);
    await this.spendControls.consumeDailyAllowance(manager, vendorId, day, controls, charge);

    // The quote's use, the transaction, its first status event and its submission intent (its
    // outbox row) in one statement.
    const [admitted] = (await manager.query(
      `WITH used AS (UPDATE purchase_quotes SET used_at = $14 WHERE id = $4),
            admitted AS (
              INSERT INTO purchase_transactions AS t (id, vendor_id, reference, quote_id, product_id, pricing_version_id, status, charge_cents,
                wholesale_cents, currency, destination_amount, destination_unit, identifiers, admission_day, created_at, updated_at)
              VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $14)
              RETURNING ${TRANSACTION_VIEW_COLUMNS}),
            event AS (
              INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, reason) SELECT id, NULL, 'pending', 'admitted' FROM admitted),
            outbox AS (${outboxRowsFrom('admitted', 'purchase.submit', { id: '$15', payload: '$16', runAt: 'now()' })})
       SELECT * FROM admitted`,
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
        ...outboxBindValues(jobSpec('purchase.submit', { transactionId })),
      ],
    )) as TransactionViewRow[];
    return { transaction: transactionViewOf(admitted), replayed: false };
  }

  /** When the quote is unknown, and after a refusal: the reference conflict answers first, as documented. */
  private async referenceTaken(manager: EntityManager, vendorId: string, reference: string): Promise<boolean> {
    const rows = await manager.query(`SELECT 1 FROM purchase_transactions WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]);
    return rows.length > 0;
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
