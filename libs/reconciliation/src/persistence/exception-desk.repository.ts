import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, updateReturning, type Queryable } from '#database';
import { centsColumn, centsFromDbValue, type Cents } from '#money';
import type { ExceptionDeskFilter, ExceptionDeskItem, ExceptionEvidenceLine, ExceptionNote, ExceptionResolution } from '../exception-desk.js';

const nullableCents = (sql: string) => [sql, (raw: string | null): Cents | null => (raw === null ? null : centsFromDbValue(raw))] as const;

/** An exception with what staff need beside it: `e` the exception, `v` its vendor, `p` / `t` its payout or purchase, `o` its owner. */
const ITEM = readShape<ExceptionDeskItem>({
  id: 'e.id', domain: 'e.domain', kind: 'e.kind', dedupeKey: 'e.dedupe_key', vendorId: 'e.vendor_id', purchaseTransactionId: 'e.purchase_transaction_id',
  payoutId: 'e.payout_id', provider: 'e.provider', reportDate: "to_char(e.report_date, 'YYYY-MM-DD')", details: 'e.details', status: 'e.status',
  raisedAt: 'e.raised_at', resolvedAt: 'e.resolved_at', resolvedBy: 'e.resolved_by', resolution: 'e.resolution',
  vendorName: 'v.name', recordReference: 'COALESCE(p.reference, t.reference)', recordStatus: 'COALESCE(p.status, t.status)',
  ourAmountCents: nullableCents('COALESCE(p.amount_cents, t.charge_cents)::text'), ourFeeCents: nullableCents('p.fee_cents::text'),
  ownerStaffId: 'e.owner_staff_id', ownerEmail: 'o.email', claimedAt: 'e.claimed_at', resolutionKind: 'e.resolution_kind',
  resolvedByStaffId: 'e.resolved_by_staff_id', resolutionProposalId: 'e.resolution_proposal_id',
});
const FROM = `reconciliation_exceptions e
  LEFT JOIN vendors v ON v.id = e.vendor_id
  LEFT JOIN payouts p ON p.id = e.payout_id
  LEFT JOIN purchase_transactions t ON t.id = e.purchase_transaction_id
  LEFT JOIN staff_users o ON o.id = e.owner_staff_id`;

const NOTE = readShape<ExceptionNote>({ id: 'id::text', author: 'author', authorStaffId: 'author_staff_id', body: 'body', createdAt: 'created_at' });

const LINE = readShape<ExceptionEvidenceLine>({
  id: 'l.id::text', reportDate: "to_char(r.report_date, 'YYYY-MM-DD')", provider: 'r.provider', providerReference: 'l.provider_reference',
  merchantReference: 'l.merchant_reference', amountCents: centsColumn('l.amount_cents::text'), currency: 'l.currency', status: 'l.status',
  providerStatus: "l.line->>'status'", settledAt: "l.line->>'settled_at'", reversedAt: "l.line->>'reversed_at'", matchResult: 'l.match_result',
  exceptionId: 'l.exception_id', withdrawnAt: 'l.withdrawn_at',
});

/**
 * The exception queue's side of `reconciliation_exceptions` (docs/BACK-OFFICE.md, "Exceptions"):
 * the staff reads with the vendor's name and the record's amounts, the owner, the append-only
 * notes, the report lines that are the evidence, and the resolution. Raising stays with
 * ReconciliationExceptionsRepository. Every write is guarded by the row's state (open, owned by
 * whom the caller believes), so two people acting at once cannot both succeed.
 */
@Injectable()
export class ExceptionDeskRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Open exceptions oldest first (the queue); resolved ones most recently resolved first. */
  async list(filter: ExceptionDeskFilter = {}): Promise<ExceptionDeskItem[]> {
    const order = filter.status === 'resolved' ? 'e.resolved_at DESC, e.id' : 'e.raised_at, e.id';
    const rows: object[] = await this.dataSource.query(
      `SELECT ${ITEM.columns} FROM ${FROM}
        WHERE ($1::text IS NULL OR e.status = $1) AND ($2::text IS NULL OR e.kind = $2)
        ORDER BY ${order} LIMIT $3`,
      [filter.status ?? null, filter.kind ?? null, filter.limit ?? 200],
    );
    return rows.map(ITEM.read);
  }

  async get(id: string, manager: Queryable = this.dataSource.manager): Promise<ExceptionDeskItem | null> {
    const rows: object[] = await manager.query(`SELECT ${ITEM.columns} FROM ${FROM} WHERE e.id = $1`, [id]);
    return ITEM.first(rows);
  }

  /** The exception, its row locked until the caller's commit (every decision about it takes this first). */
  async lock(manager: Queryable, id: string): Promise<ExceptionDeskItem | null> {
    const rows: object[] = await manager.query(`SELECT ${ITEM.columns} FROM ${FROM} WHERE e.id = $1 FOR UPDATE OF e`, [id]);
    return ITEM.first(rows);
  }

  /**
   * Sets the owner (null: nobody) of an open exception, only if it is still owned by `expected`
   * (null: nobody): a claim never takes over someone else's exception by accident. False when refused.
   */
  async setOwner(manager: Queryable, id: string, owner: string | null, expected: string | null): Promise<boolean> {
    const rows = await updateReturning(
      manager,
      `UPDATE reconciliation_exceptions SET owner_staff_id = $2, claimed_at = CASE WHEN $2::uuid IS NULL THEN NULL ELSE now() END
        WHERE id = $1 AND status = 'open' AND owner_staff_id IS NOT DISTINCT FROM $3::uuid RETURNING id`,
      [id, owner, expected],
    );
    return rows.length === 1;
  }

  /** Closes an open exception with its named resolution; false when it was not open (any more). */
  async resolve(manager: Queryable, id: string, resolution: ExceptionResolution): Promise<boolean> {
    const rows = await updateReturning(
      manager,
      `UPDATE reconciliation_exceptions SET status = 'resolved', resolved_at = now(), resolved_by = $2, resolution = $3, resolution_kind = $4,
              resolved_by_staff_id = $5, resolution_proposal_id = $6
        WHERE id = $1 AND status = 'open' RETURNING id`,
      [id, resolution.resolvedBy, resolution.resolution, resolution.kind, resolution.resolvedByStaffId, resolution.proposalId],
    );
    return rows.length === 1;
  }

  async addNote(manager: Queryable, exceptionId: string, author: { staffUserId: string; label: string }, body: string): Promise<string> {
    const [row]: { id: string }[] = await manager.query(
      `INSERT INTO reconciliation_exception_notes (exception_id, author_staff_id, author, body) VALUES ($1, $2, $3, $4) RETURNING id::text AS id`,
      [exceptionId, author.staffUserId, author.label, body],
    );
    return row.id;
  }

  async notes(exceptionId: string): Promise<ExceptionNote[]> {
    const rows: object[] = await this.dataSource.query(`SELECT ${NOTE.columns} FROM reconciliation_exception_notes WHERE exception_id = $1 ORDER BY id`, [exceptionId]);
    return rows.map(NOTE.read);
  }

  /** The settlement lines that raised the exception, and every line about its record, oldest first. */
  async lines(exception: Pick<ExceptionDeskItem, 'id' | 'payoutId' | 'purchaseTransactionId'>): Promise<ExceptionEvidenceLine[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${LINE.columns} FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id
        WHERE l.exception_id = $1 OR ($2::uuid IS NOT NULL AND l.payout_id = $2) OR ($3::uuid IS NOT NULL AND l.purchase_transaction_id = $3)
        ORDER BY l.id LIMIT 100`,
      [exception.id, exception.payoutId, exception.purchaseTransactionId],
    );
    return rows.map(LINE.read);
  }
}
