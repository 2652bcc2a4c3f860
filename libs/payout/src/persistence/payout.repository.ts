import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, updateReturning, type Queryable } from '#database';
import { centsColumn, type Cents } from '#money';
import { jobSpec, outboxBindValues, outboxRowsFrom } from '#queues';
import { WEBHOOK_DELIVERIES_WRITTEN, webhookEventCtes, webhookEventValues, type NewWebhookEvent, type WebhookDeliveryWritten } from '#webhooks';
import type { VendorMethodRecord } from '../model/method-policy.js';
import type { PayoutHold } from '../model/ledger.js';
import { BATCH_OPEN_ITEM_STATUSES } from '../model/batch-status.js';
import { PAYOUT_REFERENCE_PATTERN } from '../model/payout-field-rules.js';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import {
  PAYOUT_ID_PATTERN,
  type DeliveryReadChannel,
  type PayoutRecord,
  type PayoutStatus,
  type SmsResendOutcome,
} from '../model/payout-record.js';
import { LEDGER_MOVE_BIND_COUNT, ledgerMoveCtes, ledgerMoveValues } from './ledger.repository.js';
import { VENDOR_METHOD } from './vendor-payout-method.repository.js';


/**
 * A payout row as admission writes it. `submissionStartedAt` is set for single payouts, whose
 * provider call follows the commit at once; batch items get it when their job claims them.
 */
export type NewPayout = Pick<
  PayoutRecord,
  'id' | 'vendorId' | 'reference' | 'batchId' | 'batchPosition' | 'method' | 'amountCents' | 'feeCents' | 'merchantReference' | 'recipientEncrypted'
  | 'metadata' | 'requestFingerprint' | 'submissionStartedAt' | 'nextPollAt'
> & { statusReason: string };

/** One exchange with the provider as kept in `payout_provider_contacts` (never a PIN or a key). */
export interface ProviderContactRow {
  payoutId: string;
  kind: 'submission' | 'lookup';
  outcome: string;
  httpStatus: number | null;
  summary: string | null;
}

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

/** A submission answered "paid" as PayoutRepository.recordPaidSubmission writes it. */
export interface PaidSubmission {
  payoutId: string;
  vendorId: string;
  /** The provider reference the caller's copy of the payout holds: the verdict applies only to a payout still holding it. */
  knownProviderReference: string | null;
  paidAt: Date;
  providerReference: string | null;
  deliveryEncrypted: string | null;
  contact: { httpStatus: number; summary: string };
  hold: PayoutHold;
  /** The payout.paid event, its data made from the caller's copy as the update leaves it. */
  event: NewWebhookEvent;
  /** NOTIFY this channel with the payout id at commit (replays waiting for the answer), or null. */
  notifyChannel: string | null;
  /** The delivery-read audit row of a response that embeds the delivery, or null. */
  deliveryRead: { tokenId: string; channel: DeliveryReadChannel } | null;
}

/** What recordPaidSubmission did. */
export type PaidSubmissionResult =
  | { applied: true; payout: PayoutRecord; settled: boolean; webhookDeliveries: WebhookDeliveryWritten[] }
  /** The payout exists (now locked by the caller's transaction) but was not as expected: nothing was written. */
  | { applied: false; found: boolean };

/** A payout as staff see it in the back-office: across vendors; never the recipient or a PIN. */
export type PayoutStaffItem = Pick<
  PayoutRecord,
  'id' | 'vendorId' | 'reference' | 'method' | 'amountCents' | 'feeCents' | 'status' | 'statusReason' | 'merchantReference' | 'providerReference'
  | 'createdAt' | 'submissionStartedAt' | 'submissionAnsweredAt' | 'nextPollAt'
> & {
  vendorName: string;
  /** When it entered needs_review (else its creation). */
  waitingSince: Date;
};

/** One recorded exchange with the provider (`payout_provider_contacts`). */
export type PayoutContact = Omit<ProviderContactRow, 'payoutId'> & { at: Date };

/** A payout as staff see it: `p` is the payout, `v` its vendor. */
const STAFF_ITEM = readShape<PayoutStaffItem>({
  id: 'p.id', vendorId: 'p.vendor_id', vendorName: 'v.name', reference: 'p.reference', method: 'p.method',
  amountCents: centsColumn('p.amount_cents::text'), feeCents: centsColumn('p.fee_cents::text'), status: 'p.status', statusReason: 'p.status_reason',
  merchantReference: 'p.merchant_reference', providerReference: 'p.provider_reference', createdAt: 'p.created_at',
  waitingSince: 'COALESCE(p.review_at, p.created_at)', submissionStartedAt: 'p.submission_started_at',
  submissionAnsweredAt: 'p.submission_answered_at', nextPollAt: 'p.next_poll_at',
});

/** The `payouts` table as read (defined by the migrations); unqualified, so it serves RETURNING too. */
const PAYOUT = readShape<PayoutRecord>({
  id: 'id', vendorId: 'vendor_id', reference: 'reference', batchId: 'batch_id', batchPosition: 'batch_position', method: 'method',
  amountCents: centsColumn('amount_cents'), feeCents: centsColumn('fee_cents'), currency: ['currency', () => 'ZAR'], status: 'status',
  statusReason: 'status_reason', merchantReference: 'merchant_reference', providerReference: 'provider_reference',
  recipientEncrypted: 'recipient_encrypted', metadata: 'metadata', requestFingerprint: ['request_fingerprint', (raw: string) => raw.trim()],
  deliveryEncrypted: 'delivery_encrypted', submissionStartedAt: 'submission_started_at', submissionAnsweredAt: 'submission_answered_at',
  pollCount: 'poll_count', nextPollAt: 'next_poll_at', notFoundStreak: 'not_found_streak', providerSeenAt: 'provider_seen_at',
  createdAt: 'created_at', updatedAt: 'updated_at', paidAt: 'paid_at', reversedAt: 'reversed_at',
});

/**
 * What admission writes of a new payout (with status `pending`): each column, the SQL type of its
 * bind value and that value, in one order for the single payout's statement and the batch's unnest.
 */
const NEW_PAYOUT_COLUMNS: ReadonlyArray<readonly [column: string, type: string, value: (payout: NewPayout) => unknown]> = [
  ['id', 'uuid', (payout) => payout.id],
  ['vendor_id', 'uuid', (payout) => payout.vendorId],
  ['reference', 'text', (payout) => payout.reference],
  ['batch_id', 'uuid', (payout) => payout.batchId],
  ['batch_position', 'int', (payout) => payout.batchPosition],
  ['method', 'text', (payout) => payout.method],
  ['amount_cents', 'bigint', (payout) => payout.amountCents.toString()],
  ['fee_cents', 'bigint', (payout) => payout.feeCents.toString()],
  ['status_reason', 'text', (payout) => payout.statusReason],
  ['merchant_reference', 'text', (payout) => payout.merchantReference],
  ['recipient_encrypted', 'text', (payout) => payout.recipientEncrypted],
  ['metadata', 'jsonb', (payout) => JSON.stringify(payout.metadata)],
  ['request_fingerprint', 'text', (payout) => payout.requestFingerprint],
  ['submission_started_at', 'timestamptz', (payout) => payout.submissionStartedAt],
  ['next_poll_at', 'timestamptz', (payout) => payout.nextPollAt],
];
const NEW_PAYOUT_COLUMN_NAMES = NEW_PAYOUT_COLUMNS.map(([column]) => column).join(', ');

/**
 * The payout aggregate: payout rows with their provider trail (`payout_provider_contacts`), the
 * delivery-read audit and the SMS resends. Every vendor-facing read takes the vendorId, so a query
 * cannot forget the tenant; the worker's reads by id are named for the worker (jobs carry only
 * our own ids). Status moves are guarded by the current status in the statement itself.
 */
@Injectable()
export class PayoutRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByReference(vendorId: string, reference: string, manager: Queryable = this.dataSource.manager): Promise<PayoutRecord | null> {
    // Every stored reference matched the pattern; anything else (a NUL byte, 5 KB of text) cannot exist and never reaches SQL.
    if (!PAYOUT_REFERENCE_PATTERN.test(reference)) return null;
    return PAYOUT.first(await manager.query(`SELECT ${PAYOUT.columns} FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]));
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
    const p = LEDGER_MOVE_BIND_COUNT;
    // The payout's bind values follow the ledger's, the first poll's outbox row's follow them.
    const bind = (column: string) => `$${p + 1 + NEW_PAYOUT_COLUMNS.findIndex(([name]) => name === column)}`;
    const outbox = p + 1 + NEW_PAYOUT_COLUMNS.length;
    const firstPoll = { id: `$${outbox}::text`, payload: `$${outbox + 1}`, runAt: `${bind('next_poll_at')}::timestamptz` };
    const [row] = (await this.dataSource.query(
      `WITH taken AS (SELECT EXISTS (SELECT 1 FROM payouts WHERE vendor_id = $1 AND reference = ${bind('reference')}::text) AS taken),
       ${ledgerMoveCtes('reserve', 1, 'NOT (SELECT taken FROM taken)')},
       payout AS (
         INSERT INTO payouts (${NEW_PAYOUT_COLUMN_NAMES}, status)
         SELECT ${NEW_PAYOUT_COLUMNS.map(([, type], index) => `$${p + 1 + index}::${type}`).join(', ')}, 'pending' FROM account
         RETURNING ${PAYOUT.columns}
       ), first_poll AS (${outboxRowsFrom('payout', 'payout.poll-status', firstPoll)})
       SELECT payout.*, (SELECT taken FROM taken) AS "referenceTaken" FROM (SELECT 1) one LEFT JOIN payout ON true`,
      [
        ...ledgerMoveValues('reserve', payout.vendorId, hold.cents, [hold]),
        ...NEW_PAYOUT_COLUMNS.map(([, , value]) => value(payout)),
        ...outboxBindValues(jobSpec('payout.poll-status', { payoutId: payout.id, link: 0 })),
      ],
    )) as Array<{ id: string | null; referenceTaken: boolean }>;
    return { admitted: row.id === null ? null : PAYOUT.read(row), referenceTaken: row.referenceTaken };
  }

  /**
   * A single payout's submission answered "paid", in ONE statement in the caller's transaction:
   * under the payout's row lock, the guarded move to paid (as markPaid), the provider contact,
   * the settlement of the hold (its account row locked last), the payout.paid webhook event and
   * its deliveries, the NOTIFY for waiting replays (sent at commit) and the delivery-read audit
   * row. Applied only while the payout is open, not a batch item and still holds
   * `knownProviderReference` (the event's data was made from that copy); otherwise nothing is
   * written, the row stays locked and the caller applies the answer the general way. The caller
   * enqueues the webhook deliveries in the same transaction and checks `settled`.
   */
  async recordPaidSubmission(manager: Queryable, paid: PaidSubmission): Promise<PaidSubmissionResult> {
    const w = LEDGER_MOVE_BIND_COUNT + 1;
    const q = w + 5;
    const rows: Array<Record<string, unknown>> = await manager.query(
      `WITH locked AS (
         SELECT id AS locked_id, status AS locked_status, batch_id AS locked_batch_id, provider_reference AS locked_provider_reference
           FROM payouts WHERE id = $${q}::uuid FOR UPDATE
       ), paid AS (
         UPDATE payouts SET status = 'paid', status_reason = NULL, paid_at = $${q + 2}::timestamptz, review_at = NULL, updated_at = now(),
                last_checked_at = now(), provider_reference = COALESCE(provider_reference, $${q + 3}::text),
                provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
                submission_answered_at = COALESCE(submission_answered_at, now()), delivery_encrypted = COALESCE($${q + 4}::text, delivery_encrypted)
           FROM locked
          WHERE id = locked_id AND locked_status IN ('pending', 'needs_review') AND locked_batch_id IS NULL
            AND locked_provider_reference IS NOT DISTINCT FROM $${q + 1}::text
          RETURNING payouts.*
       ), contact AS (
         INSERT INTO payout_provider_contacts (payout_id, kind, outcome, http_status, summary) SELECT id, 'submission', 'paid', $${q + 5}::int, $${q + 6}::text FROM paid
       ), ${ledgerMoveCtes('settle', 1, 'EXISTS (SELECT 1 FROM paid)')},
       ${webhookEventCtes(w, 'EXISTS (SELECT 1 FROM paid)')},
       notified AS (SELECT pg_notify($${q + 7}::text, id::text) FROM paid WHERE $${q + 7}::text IS NOT NULL),
       delivery_read AS (
         INSERT INTO payout_delivery_reads (vendor_id, payout_id, token_id, channel) SELECT vendor_id, id, $${q + 8}::uuid, $${q + 9}::text FROM paid WHERE $${q + 8}::uuid IS NOT NULL
       )
       SELECT ${PAYOUT.columns}, (SELECT count(*) FROM locked)::int AS "found", (SELECT count(*) FROM account)::int AS "settled",
              ${WEBHOOK_DELIVERIES_WRITTEN} AS "webhookDeliveries", (SELECT count(*) FROM notified)::int AS "notified"
         FROM (SELECT 1) one LEFT JOIN paid ON true`,
      [
        ...ledgerMoveValues('settle', paid.vendorId, paid.hold.cents, [paid.hold]),
        ...webhookEventValues(paid.event),
        paid.payoutId,
        paid.knownProviderReference,
        paid.paidAt,
        paid.providerReference,
        paid.deliveryEncrypted,
        paid.contact.httpStatus,
        paid.contact.summary,
        paid.notifyChannel,
        paid.deliveryRead?.tokenId ?? null,
        paid.deliveryRead?.channel ?? null,
      ],
    );
    const [row] = rows;
    if (row.id === null) return { applied: false, found: (row.found as number) > 0 };
    return { applied: true, payout: PAYOUT.read(row), settled: (row.settled as number) > 0, webhookDeliveries: row.webhookDeliveries as WebhookDeliveryWritten[] };
  }

  /**
   * One INSERT for any number of payouts (arrays unnested server-side, so a 500-item batch is
   * one round trip), answering the stored rows in the order given. With `skipExistingReference`,
   * a reference the vendor already used inserts nothing and is missing from the result (a
   * concurrent request won).
   */
  async insert(manager: Queryable, payouts: readonly NewPayout[], skipExistingReference: boolean): Promise<PayoutRecord[]> {
    const rows: object[] = await manager.query(
      `INSERT INTO payouts (${NEW_PAYOUT_COLUMN_NAMES}, status)
       SELECT t.*, 'pending'
         FROM unnest(${NEW_PAYOUT_COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')}) AS t(${NEW_PAYOUT_COLUMN_NAMES})
       ${skipExistingReference ? 'ON CONFLICT (vendor_id, reference) DO NOTHING' : ''}
       RETURNING ${PAYOUT.columns}`,
      NEW_PAYOUT_COLUMNS.map(([, , value]) => payouts.map(value)),
    );
    const position = new Map(payouts.map((payout, index) => [payout.id, index]));
    return rows.map(PAYOUT.read).sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  }

  // --- Submission -------------------------------------------------------------------------------

  /**
   * For a batch item: sets the submission marker and schedules the first status poll (its outbox
   * row) in one statement, so both commit together. The claimed payout, or null when the marker
   * was set before (or the payout is not pending).
   */
  async claimSubmission(payoutId: string, now: Date, firstPoll: Date): Promise<PayoutRecord | null> {
    // The outbox row exists only if the claim matched.
    // The row is locked by its primary key and the claim's conditions are checked on the locked
    // row: written as `UPDATE ... WHERE id = $1 AND status = 'pending' AND submission_started_at
    // IS NULL`, the conditions match payouts_unsubmitted_idx's predicate and the planner may scan
    // every unsubmitted payout for the id, so claims get slower as a batch backlog grows.
    return PAYOUT.first(
      await this.dataSource.query(
        `WITH locked AS (
           SELECT id AS locked_id, status AS locked_status, submission_started_at AS locked_started_at FROM payouts WHERE id = $1 FOR UPDATE
         ), claimed AS (
           UPDATE payouts SET submission_started_at = $2, status_reason = 'submitting', poll_count = 0, next_poll_at = $3, updated_at = now()
             FROM locked
            WHERE id = locked_id AND locked_status = 'pending' AND locked_started_at IS NULL RETURNING ${PAYOUT.columns}
         ), first_poll AS (${outboxRowsFrom('claimed', 'payout.poll-status', { id: '$4', payload: '$5', runAt: '$3' })})
         SELECT * FROM claimed`,
        [payoutId, now, firstPoll, ...outboxBindValues(jobSpec('payout.poll-status', { payoutId, link: 0 }))],
      ),
    );
  }

  /** The submission got no usable answer: the attempt has ended now. Null for an unknown payout. */
  async markUnanswered(manager: Queryable, payoutId: string): Promise<PayoutRecord | null> {
    const rows = await updateReturning<object>(
      manager,
      `UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()),
              status_reason = CASE WHEN status = 'pending' THEN 'awaiting_provider' ELSE status_reason END, updated_at = now()
        WHERE id = $1 RETURNING ${PAYOUT.columns}`,
      [payoutId],
    );
    return PAYOUT.first(rows);
  }

  async markAnswered(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()) WHERE id = $1`, [payoutId]);
  }

  // --- Status polls -----------------------------------------------------------------------------

  /** The next link of the status-poll chain and its outbox row, in one statement. */
  async scheduleNextPoll(manager: Queryable, payoutId: string, link: number, at: Date): Promise<void> {
    await manager.query(
      `WITH next_link AS (UPDATE payouts SET poll_count = $2, next_poll_at = $3 WHERE id = $1 RETURNING id)
       ${outboxRowsFrom('next_link', 'payout.poll-status', { id: '$4', payload: '$5', runAt: '$3' })}`,
      [payoutId, link, at, ...outboxBindValues(jobSpec('payout.poll-status', { payoutId, link }))],
    );
  }

  /** Ends the chain: `link` may never run. */
  async endPolls(manager: Queryable, payoutId: string, link: number): Promise<void> {
    await manager.query(`UPDATE payouts SET poll_count = $2, next_poll_at = NULL WHERE id = $1`, [payoutId, link]);
  }

  /** Sweeper: payouts whose next status poll is overdue by more than the grace period. */
  async overduePolls(graceMs: number, limit: number): Promise<Array<{ id: string; pollCount: number }>> {
    const rows: Array<{ id: string; poll_count: number }> = await this.dataSource.query(
      `SELECT id, poll_count FROM payouts WHERE next_poll_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY next_poll_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => ({ id: row.id, pollCount: row.poll_count }));
  }

  /** Sweeper: batch items never claimed, older than the grace period. */
  async unclaimedItems(graceMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM payouts WHERE status = 'pending' AND submission_started_at IS NULL
          AND created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY created_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => row.id);
  }

  // --- staff reads (the back-office review queue: across vendors) ---

  /** Payouts waiting in `needs_review`, oldest first (partial index of migration 1763781300000). */
  async reviewQueue(limit: number): Promise<PayoutStaffItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id
        WHERE p.status = 'needs_review' ORDER BY COALESCE(p.review_at, p.created_at), p.id LIMIT $1`,
      [limit],
    );
    return rows.map(STAFF_ITEM.read);
  }

  /** How many payouts wait in `needs_review` and how long the oldest has (seconds; 0 when none). */
  async reviewDepth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))), 0)::float8 AS oldest
         FROM payouts WHERE status = 'needs_review'`,
    );
    return { count: row.count, oldestAgeSeconds: Math.max(0, Math.floor(row.oldest)) };
  }

  async staffItem(payoutId: string): Promise<PayoutStaffItem | null> {
    const rows: object[] = await this.dataSource.query(`SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id WHERE p.id = $1`, [payoutId]);
    return STAFF_ITEM.first(rows);
  }

  /** The back-office search, across vendors: the payout with this id and those whose reference starts so (a LIKE pattern), newest first. */
  async staffSearch(id: string | null, referencePattern: string, limit: number): Promise<PayoutStaffItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id
        WHERE p.id = $1::uuid OR p.reference LIKE $2 ESCAPE '\\' ORDER BY p.created_at DESC, p.id DESC LIMIT $3`,
      [id, referencePattern, limit],
    );
    return rows.map(STAFF_ITEM.read);
  }

  /** The payout's provider trail, oldest first: every submission and lookup and what the provider said. */
  async contacts(payoutId: string, manager: Queryable = this.dataSource.manager): Promise<PayoutContact[]> {
    return manager.query(
      `SELECT kind, outcome, http_status AS "httpStatus", summary, at FROM payout_provider_contacts WHERE payout_id = $1 ORDER BY id`,
      [payoutId],
    );
  }

  /** Appends one exchange to the payout's provider trail (append-only table). */
  async appendContact(manager: Queryable, contact: ProviderContactRow): Promise<void> {
    await manager.query(`INSERT INTO payout_provider_contacts (payout_id, kind, outcome, http_status, summary) VALUES ($1, $2, $3, $4, $5)`, [
      contact.payoutId,
      contact.kind,
      contact.outcome,
      contact.httpStatus,
      contact.summary,
    ]);
  }

  // --- Outcomes (each under the payout's row lock, taken by findForWorker(..., true)) ------------

  async markAwaitingProvider(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET status_reason = 'awaiting_provider', updated_at = now() WHERE id = $1`, [payoutId]);
  }

  async touchLastChecked(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET last_checked_at = now() WHERE id = $1`, [payoutId]);
  }

  async setNotFoundStreak(manager: Queryable, payoutId: string, streak: number): Promise<void> {
    await manager.query(`UPDATE payouts SET not_found_streak = $2 WHERE id = $1`, [payoutId, streak]);
  }

  /** The database's clock, which every settle period is measured against. */
  async databaseNow(manager: Queryable): Promise<Date> {
    const [{ now }] = (await manager.query(`SELECT now() AS now`)) as Array<{ now: Date }>;
    return new Date(now);
  }

  /** An answer refused as not about this payout: it still proves the provider saw a payment. */
  async recordRefusedAnswer(manager: Queryable, payoutId: string, fromSubmission: boolean): Promise<PayoutRecord> {
    const rows = await updateReturning<object>(
      manager,
      `UPDATE payouts SET last_checked_at = now(), provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
              submission_answered_at = CASE WHEN $2 THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END,
              status_reason = CASE WHEN $2 AND status = 'pending' THEN 'awaiting_provider' ELSE status_reason END
        WHERE id = $1 RETURNING ${PAYOUT.columns}`,
      [payoutId, fromSubmission],
    );
    return PAYOUT.read(rows[0]);
  }

  /** The contact without a change of status; answers what it wrote. */
  async recordContact(
    manager: Queryable,
    payoutId: string,
    providerReference: string | null,
    fromSubmission: boolean,
  ): Promise<Pick<PayoutRecord, 'providerReference' | 'submissionAnsweredAt' | 'providerSeenAt'>> {
    const rows = await updateReturning<Pick<PayoutRecord, 'providerReference' | 'submissionAnsweredAt' | 'providerSeenAt'>>(
      manager,
      `UPDATE payouts SET last_checked_at = now(), provider_reference = COALESCE(provider_reference, $2),
              provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
              submission_answered_at = CASE WHEN $3 THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END
        WHERE id = $1 RETURNING provider_reference AS "providerReference", submission_answered_at AS "submissionAnsweredAt", provider_seen_at AS "providerSeenAt"`,
      [payoutId, providerReference, fromSubmission],
    );
    return rows[0];
  }

  /** Contact, status and delivery in one statement, guarded by the open statuses; null when the guard refused. */
  async markPaid(
    manager: Queryable,
    payoutId: string,
    paid: { paidAt: Date; providerReference: string | null; fromSubmission: boolean; deliveryEncrypted: string | null },
  ): Promise<PayoutRecord | null> {
    const rows = await updateReturning<object>(
      manager,
      `UPDATE payouts SET status = 'paid', status_reason = NULL, paid_at = $2, review_at = NULL, updated_at = now(),
              last_checked_at = now(), provider_reference = COALESCE(provider_reference, $3),
              provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
              submission_answered_at = CASE WHEN $4 THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END,
              delivery_encrypted = COALESCE($5, delivery_encrypted)
        WHERE id = $1 AND status IN ('pending', 'needs_review') RETURNING ${PAYOUT.columns}`,
      [payoutId, paid.paidAt, paid.providerReference, paid.fromSubmission, paid.deliveryEncrypted],
    );
    return PAYOUT.first(rows);
  }

  /**
   * failed → paid when the provider proved paid a payout we had released (a settlement line or a
   * verified answer): guarded by `status = 'failed'`, so the re-debit that follows happens once
   * whichever path (line, poll, a second ingestion) gets here first. Polls stay stopped. Null when
   * the guard refused.
   */
  async markPaidAfterRelease(manager: Queryable, payoutId: string, paid: { paidAt: Date; providerReference: string | null }): Promise<PayoutRecord | null> {
    const rows = await updateReturning<object>(
      manager,
      `UPDATE payouts SET status = 'paid', status_reason = 'paid_after_release', paid_at = $2, updated_at = now(), last_checked_at = now(),
              provider_reference = COALESCE(provider_reference, $3), provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0, next_poll_at = NULL
        WHERE id = $1 AND status = 'failed' RETURNING ${PAYOUT.columns}`,
      [payoutId, paid.paidAt, paid.providerReference],
    );
    return PAYOUT.first(rows);
  }

  /**
   * needs_review → paid by two staff (an approved four-eyes proposal): no provider answer, so
   * none of the provider columns change; polls stop. Null when the guard refused.
   */
  async markPaidByStaff(manager: Queryable, payoutId: string): Promise<PayoutRecord | null> {
    const rows = await updateReturning<object>(
      manager,
      `UPDATE payouts SET status = 'paid', status_reason = 'resolved_by_staff', paid_at = now(), review_at = NULL, next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'needs_review' RETURNING ${PAYOUT.columns}`,
      [payoutId],
    );
    return PAYOUT.first(rows);
  }

  /** pending | needs_review → failed; false when the guard refused. */
  async markFailed(manager: Queryable, payoutId: string, reason: 'provider_rejected' | 'not_received_by_provider' | 'resolved_by_staff'): Promise<boolean> {
    const rows = await updateReturning<unknown>(
      manager,
      `UPDATE payouts SET status = 'failed', status_reason = $2, failed_at = now(), next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'needs_review') RETURNING id`,
      [payoutId, reason],
    );
    return rows.length > 0;
  }

  /** paid → reversed; false when the guard refused. */
  async markReversed(manager: Queryable, payoutId: string, reversedAt: Date): Promise<boolean> {
    const rows = await updateReturning<unknown>(
      manager,
      `UPDATE payouts SET status = 'reversed', status_reason = 'reversed_by_provider', reversed_at = $2, next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'paid' RETURNING id`,
      [payoutId, reversedAt],
    );
    return rows.length > 0;
  }

  /** pending → needs_review (the hold stays reserved). */
  async markNeedsReview(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'needs_review', status_reason = 'outcome_unknown', review_at = now(), next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'pending'`,
      [payoutId],
    );
  }

  /** A pending payout never handed to a provider (the caller checked it under the row lock). */
  async markCancelled(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'cancelled', status_reason = 'cancelled_by_operations', next_poll_at = NULL, updated_at = now() WHERE id = $1`,
      [payoutId],
    );
  }

  async storeDelivery(manager: Queryable, payoutId: string, deliveryEncrypted: string): Promise<void> {
    await manager.query(`UPDATE payouts SET delivery_encrypted = $2 WHERE id = $1`, [payoutId, deliveryEncrypted]);
  }

  // --- Settlement -------------------------------------------------------------------------------

  /**
   * Payouts by one of `methods` paid (or reversed) in [from, to) that no line of the settlement
   * report names, with the amount and provider reference as the report would carry them.
   */
  async closedWithoutSettlementLine(
    reportId: string,
    from: Date,
    to: Date,
    methods: readonly string[],
  ): Promise<{ id: string; vendor_id: string; status: PayoutStatus; amount_cents: string; provider_reference: string | null }[]> {
    return this.dataSource.query(
      `SELECT p.id, p.vendor_id, p.status, p.amount_cents::text AS amount_cents, p.provider_reference
         FROM payouts p
        WHERE p.method = ANY($4::text[]) AND p.status IN ('paid', 'reversed')
          AND ((p.paid_at >= $2 AND p.paid_at < $3) OR (p.status = 'reversed' AND p.reversed_at >= $2 AND p.reversed_at < $3))
          AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.report_id = $1 AND l.payout_id = p.id)`,
      [reportId, from, to, methods],
    );
  }

  // --- Delivery reads and SMS resends -----------------------------------------------------------

  /** One audit row per payout whose delivery the token read, in one statement. */
  async recordDeliveryReads(read: { vendorId: string; tokenId: string; channel: DeliveryReadChannel }, payoutIds: readonly string[]): Promise<void> {
    await this.dataSource.query(`INSERT INTO payout_delivery_reads (vendor_id, payout_id, token_id, channel) SELECT $1, unnest($2::uuid[]), $3, $4`, [
      read.vendorId,
      payoutIds,
      read.tokenId,
      read.channel,
    ]);
  }

  /** Whole seconds left of the longest provider cooldown remembered for the payout's SMS; 0 when none. */
  async smsCooldownSeconds(payoutId: string): Promise<number> {
    const cooldown: Array<{ seconds: string }> = await this.dataSource.query(
      `SELECT CEIL(EXTRACT(EPOCH FROM MAX(cooldown_until) - now())) AS seconds FROM payout_sms_resends WHERE payout_id = $1 AND cooldown_until > now()`,
      [payoutId],
    );
    return Number(cooldown[0]?.seconds ?? 0);
  }

  async recordSmsResend(resend: { vendorId: string; payoutId: string; tokenId: string; outcome: SmsResendOutcome; cooldownUntil: Date | null }): Promise<void> {
    await this.dataSource.query(`INSERT INTO payout_sms_resends (vendor_id, payout_id, token_id, outcome, cooldown_until) VALUES ($1, $2, $3, $4, $5)`, [
      resend.vendorId,
      resend.payoutId,
      resend.tokenId,
      resend.outcome,
      resend.cooldownUntil,
    ]);
  }
}
