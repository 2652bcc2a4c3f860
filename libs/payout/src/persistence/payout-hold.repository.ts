import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape } from '#database';
import { centsColumn, type Cents } from '#money';
import type { ReconciliationExceptionKind } from '#reconciliation';
import { PAYOUT_OPEN_STATUSES } from '../model/payout-status.js';
import { statusLiterals } from './payout-shapes.js';

/** A payout whose hold is older than the bound and that no open reconciliation exception names. */
export interface OverdueHold {
  id: string;
  vendorId: string;
  method: string;
  status: string;
  amountCents: Cents;
  feeCents: Cents;
  createdAt: string;
  ageSeconds: number;
  /** The next `hold_overdue` exception's number for this payout: 1, or one more than those already resolved. */
  sequence: number;
}

const OVERDUE = readShape<OverdueHold>({
  id: 'p.id', vendorId: 'p.vendor_id', method: 'p.method', status: 'p.status',
  amountCents: centsColumn('p.amount_cents::text'), feeCents: centsColumn('p.fee_cents::text'),
  createdAt: `to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  ageSeconds: 'floor(extract(epoch FROM now() - p.created_at))::int',
  sequence: `(SELECT count(*)::int + 1 FROM reconciliation_exceptions e WHERE e.payout_id = p.id AND e.kind = '${'hold_overdue' satisfies ReconciliationExceptionKind}')`,
});

/**
 * The age of payout holds (PAYOUT_HOLD_MAX_AGE_MS): amount + fee reserved while a payout is
 * pending or needs_review, counted from its creation. Reads the open holds' partial index
 * (migration 1763782900000) only.
 */
@Injectable()
export class PayoutHoldRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Holds older than `maxAgeMs` that no open reconciliation exception names, oldest first. */
  async overdueWithoutOpenException(maxAgeMs: number, limit: number): Promise<OverdueHold[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${OVERDUE.columns} FROM payouts p
        WHERE p.status IN (${statusLiterals(PAYOUT_OPEN_STATUSES)}) AND p.created_at < now() - make_interval(secs => $1::float8 / 1000)
          AND NOT EXISTS (SELECT 1 FROM reconciliation_exceptions e WHERE e.payout_id = p.id AND e.status = $3)
        ORDER BY p.created_at, p.id LIMIT $2`,
      [maxAgeMs, limit, 'open'],
    );
    return rows.map(OVERDUE.read);
  }

  /** How many holds are older than `maxAgeMs`, and the oldest hold's age in seconds (0 when none), for the metrics. */
  async summary(maxAgeMs: number): Promise<{ overdue: number; oldestAgeSeconds: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE created_at < now() - make_interval(secs => $1::float8 / 1000))::int AS overdue,
              COALESCE(floor(extract(epoch FROM now() - min(created_at))), 0)::int AS oldest
         FROM payouts WHERE status IN (${statusLiterals(PAYOUT_OPEN_STATUSES)})`,
      [maxAgeMs],
    );
    return { overdue: row.overdue, oldestAgeSeconds: Math.max(0, row.oldest) };
  }
}
