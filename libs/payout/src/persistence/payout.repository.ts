import { Injectable } from '@nestjs/common';
import sql, { empty, join, raw } from 'sql-template-tag';
import { DataSource } from 'typeorm';
import { NotFoundError } from '#common';
import type { Queryable } from '#database';
import type { Cents } from '#money';
import { jobSpec, outboxRowOf } from '#queues';
import type { VendorMethodRecord } from '../model/method-policy.js';
import type { PayoutHold } from '../model/ledger.js';
import { BATCH_OPEN_ITEM_STATUSES } from '../model/batch-status.js';
import { PAYOUT_REFERENCE_PATTERN } from '../model/payout-field-rules.js';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import { PAYOUT_ID_PATTERN, type NewPayout, type PayoutRecord } from '../model/payout-record.js';
import { ledgerMoveCtes } from './ledger.repository.js';
import { NEW_PAYOUT_COLUMN_LIST, NEW_PAYOUT_FIELDS, PAYOUT, PAYOUT_READ } from './payout-shapes.js';
import { VENDOR_METHOD } from './vendor-payout-method.repository.js';

/** What a single payout's admission reads, in one statement (PayoutRepository.admissionSnapshot). */
export interface PayoutAdmissionSnapshot {
  vendor: { productionReleasedAt: Date | null };
  /** The vendor's payout_vendor_methods rows by method. */
  vendorMethods: Map<string, VendorMethodRecord>;
  /** The account's fee_per_payout; zero while the vendor has no account. */
  accountFeeCents: Cents;
  /** The payout the vendor already made with this reference, if any. */
  existing: PayoutRecord | null;
}

/**
 * The payout aggregate: payout rows as admission writes them and the domain reads them. Every
 * vendor-facing read takes the vendorId, so a query cannot forget the tenant; the worker's reads
 * by id are named for the worker (jobs carry only our own ids). Its status moves are
 * PayoutOutcomeRepository's, its trails PayoutEvidenceRepository's, the workers' claims
 * PayoutWorkRepository's and staff's read models PayoutStaffRepository's.
 */
@Injectable()
export class PayoutRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByReference(vendorId: string, reference: string, manager: Queryable = this.dataSource.manager): Promise<PayoutRecord | null> {
    // Every stored reference matched the pattern; anything else (a NUL byte, 5 KB of text) cannot exist and never reaches SQL.
    if (!PAYOUT_REFERENCE_PATTERN.test(reference)) return null;
    return PAYOUT.first(await manager.query(`SELECT ${PAYOUT.columns} FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]));
  }

  /** The vendor's payout with this reference, or NotFoundError('payout'): the 404 of every vendor-facing read by reference. */
  async requireByReference(vendorId: string, reference: string): Promise<PayoutRecord> {
    const payout = await this.findByReference(vendorId, reference);
    if (!payout) throw new NotFoundError('payout');
    return payout;
  }

  async listByBatch(vendorId: string, batchId: string): Promise<PayoutRecord[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${PAYOUT.columns} FROM payouts WHERE vendor_id = $1 AND batch_id = $2 ORDER BY batch_position`,
      [vendorId, batchId],
    );
    return rows.map(PAYOUT.read);
  }

  /**
   * Whether any item of the batch is still open. Asked on every item move before the whole batch
   * is read, so a 500-item batch reads its items once (when it completes), not once per item.
   */
  async batchHasOpenItems(manager: Queryable, batchId: string): Promise<boolean> {
    const [row] = (await manager.query(`SELECT EXISTS (SELECT 1 FROM payouts WHERE batch_id = $1 AND status = ANY($2::text[])) AS open`, [
      batchId,
      BATCH_OPEN_ITEM_STATUSES,
    ])) as { open: boolean }[];
    return row.open;
  }

  /** Worker only: every item of a batch, in the caller's transaction (the batch row is locked by then). */
  async listBatchItemsForWorker(manager: Queryable, batchId: string): Promise<PayoutRecord[]> {
    const rows: object[] = await manager.query(`SELECT ${PAYOUT.columns} FROM payouts WHERE batch_id = $1 ORDER BY batch_position`, [batchId]);
    return rows.map(PAYOUT.read);
  }

  /** References among `references` the vendor already used. */
  async usedReferences(vendorId: string, references: readonly string[]): Promise<Set<string>> {
    const rows: Array<{ reference: string }> = await this.dataSource.query(`SELECT reference FROM payouts WHERE vendor_id = $1 AND reference = ANY($2::text[])`, [
      vendorId,
      references,
    ]);
    return new Set(rows.map((row) => row.reference));
  }

  /** Worker only: a job names a payout by id. Null for an id this database does not hold. */
  async findForWorker(payoutId: string, manager: Queryable = this.dataSource.manager, lock = false): Promise<PayoutRecord | null> {
    if (!PAYOUT_ID_PATTERN.test(payoutId)) return null;
    return PAYOUT.first(await manager.query(`SELECT ${PAYOUT.columns} FROM payouts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [payoutId]));
  }

  /** Settlement: the payout a provider's report line names by our merchant reference (id and method only; the caller locks it next). */
  async findByMerchantReference(merchantReference: string): Promise<{ id: string; method: PayoutMethod } | null> {
    const [found] = (await this.dataSource.query(`SELECT id, method FROM payouts WHERE merchant_reference = $1`, [merchantReference])) as { id: string; method: PayoutMethod }[];
    return found ?? null;
  }

  /**
   * Everything a single payout's admission reads, in one statement: the vendor (readiness), its
   * method rows and account fee (the method policies) and the payout already made with this
   * reference (a replay). Null when the vendor does not exist.
   */
  async admissionSnapshot(vendorId: string, reference: string): Promise<PayoutAdmissionSnapshot | null> {
    const [row] = (await this.dataSource.query(
      `SELECT v.production_released_at AS "vendorReleasedAt",
              (SELECT fee_per_payout_cents::text FROM payout_accounts WHERE vendor_id = $1) AS "accountFeeCents",
              (SELECT coalesce(json_agg(m), '[]') FROM (SELECT ${VENDOR_METHOD.columns} FROM payout_vendor_methods WHERE vendor_id = $1) m) AS "vendorMethods",
              p.*
         FROM vendors v LEFT JOIN (SELECT ${PAYOUT.columns} FROM payouts WHERE vendor_id = $1 AND reference = $2) p ON true
        WHERE v.id = $1`,
      [vendorId, reference],
    )) as Array<{ vendorReleasedAt: Date | null; accountFeeCents: string | null; vendorMethods: object[]; id: string | null }>;
    if (!row) return null;
    const methods = row.vendorMethods.map(VENDOR_METHOD.read);
    return {
      vendor: { productionReleasedAt: row.vendorReleasedAt },
      vendorMethods: new Map(methods.map((record) => [record.method, record])),
      accountFeeCents: row.accountFeeCents === null ? 0n : BigInt(row.accountFeeCents),
      existing: row.id === null ? null : PAYOUT.read(row),
    };
  }

  /**
   * A single payout admitted in ONE statement, committed on its own: the hold's guarded update of
   * the vendor's account row comes first (the row stays locked until the statement commits) and
   * everything else is written from its RETURNING, so nothing exists unless the balance covered
   * the hold: the reserve's ledger entry, the payout with its submission marker, and the first
   * status poll's outbox row. Nothing is written, and the account row is not touched, when the
   * reference was committed before this statement began (`referenceTaken`: a concurrent request
   * won; the caller replays it); `admitted` is null without it when the balance does not cover
   * the hold. A reference committed while this statement waited for the account row fails it as
   * a whole with 23505 on payouts_vendor_reference_key.
   */
  async admitSingle(payout: NewPayout, hold: PayoutHold): Promise<{ admitted: PayoutRecord | null; referenceTaken: boolean }> {
    const newPayout = join(NEW_PAYOUT_FIELDS.map(([, type, value]) => sql`${value(payout)}::${raw(type)}`));
    const firstPoll = jobSpec('payout.poll-status', { payoutId: payout.id, link: 0 });
    const statement = sql`WITH taken AS (SELECT EXISTS (SELECT 1 FROM payouts WHERE vendor_id = ${payout.vendorId}::uuid AND reference = ${payout.reference}::text) AS taken),
       ${ledgerMoveCtes({ kind: 'reserve', vendorId: payout.vendorId, totalCents: hold.cents, entries: [hold] }, sql`NOT (SELECT taken FROM taken)`)},
       payout AS (
         INSERT INTO payouts (${NEW_PAYOUT_COLUMN_LIST}, status)
         SELECT ${newPayout}, ${'pending'}::text FROM account
         RETURNING ${PAYOUT_READ}
       ), first_poll AS (${outboxRowOf(sql`payout`, firstPoll, sql`${payout.nextPollAt}`)})
       SELECT payout.*, (SELECT taken FROM taken) AS "referenceTaken" FROM (SELECT 1) one LEFT JOIN payout ON true`;
    const [row] = (await this.dataSource.query(statement.text, statement.values)) as Array<{ id: string | null; referenceTaken: boolean }>;
    return { admitted: row.id === null ? null : PAYOUT.read(row), referenceTaken: row.referenceTaken };
  }

  /**
   * One INSERT for any number of payouts (arrays unnested server-side, so a 500-item batch is
   * one round trip), answering the stored rows in the order given. With `skipExistingReference`,
   * a reference the vendor already used inserts nothing and is missing from the result (a
   * concurrent request won).
   */
  async insert(manager: Queryable, payouts: readonly NewPayout[], skipExistingReference: boolean): Promise<PayoutRecord[]> {
    const columns = join(NEW_PAYOUT_FIELDS.map(([, type, value]) => sql`${payouts.map(value)}::${raw(type)}[]`));
    const statement = sql`INSERT INTO payouts (${NEW_PAYOUT_COLUMN_LIST}, status)
       SELECT t.*, ${'pending'}::text
         FROM unnest(${columns}) AS t(${NEW_PAYOUT_COLUMN_LIST})
       ${skipExistingReference ? sql`ON CONFLICT (vendor_id, reference) DO NOTHING` : empty}
       RETURNING ${PAYOUT_READ}`;
    const rows: object[] = await manager.query(statement.text, statement.values);
    const position = new Map(payouts.map((payout, index) => [payout.id, index]));
    return rows.map(PAYOUT.read).sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  }
}
