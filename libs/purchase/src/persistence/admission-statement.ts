import { readShape } from '#database';
import { minorUnitsColumn } from '#money';
import type { TransactionView } from '../model/transaction-view.js';
import { TRANSACTION_VIEW } from './transaction-shapes.js';

/** One POST /transactions as purchase_admit takes it (migration 1763781500000). */
export interface AdmissionRequest {
  /** The id the transaction gets if this request is admitted; a replay answers another one. */
  transactionId: string;
  vendorId: string;
  idempotencyKey: string;
  quoteId: string;
  reference: string;
  /** The admission instant; null is the database's clock (always, outside tests: AdmissionClock). */
  instant: Date | null;
  /** Refuses an unreleased vendor (production only). */
  production: boolean;
  /** Refuses with PROVIDER_NOT_CONFIGURED, in the checks' order (production configuration incomplete). */
  unready: boolean;
}

/** What the dry run's admission would leave of the vendor's limits; null for a replay (nothing is counted). */
export interface TriedAdmission {
  transaction: TransactionView;
  left: AdmissionLeft | null;
}

export interface AdmissionLeft {
  remainingTodayMinor: number;
  velocityRemaining: number;
}

/** Read (alias `t` the admitted transaction, `c` its vendor's controls, `a` its day's allowance) with the admission's own window rule. */
export const ADMISSION_LEFT = readShape<AdmissionLeft>({
  remainingTodayMinor: minorUnitsColumn('greatest(c.daily_cap_cents - a.used_cents, 0)::text'),
  velocityRemaining: 'greatest(c.velocity_count - purchase_admissions_since(t.vendor_id, t.created_at - make_interval(secs => c.velocity_window_seconds)), 0)::int',
});

/** purchase_admit's call (migration 1763781500000) and its parameters, for `admit` and its dry run. */
export function admitStatement(request: AdmissionRequest): [string, unknown[]] {
  return [
    `SELECT ${TRANSACTION_VIEW.columns} FROM purchase_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb) t`,
    [
      request.vendorId,
      request.idempotencyKey,
      request.quoteId,
      request.reference,
      request.transactionId,
      request.instant,
      request.production,
      request.unready,
      // No submission job: the worker claims the admitted purchase from PostgreSQL (migration 1763784000000).
      null,
      null,
      null,
    ],
  ];
}
