import { Injectable } from '@nestjs/common';
import sql, { type Sql } from 'sql-template-tag';
import { updateReturning, type Queryable } from '#database';
import { WEBHOOK_DELIVERIES_WRITTEN, webhookEventCtes, type NewWebhookEvent, type WebhookDeliveryWritten } from '#webhooks';
import type { PayoutHold } from '../model/ledger.js';
import type { DeliveryReadChannel, PayoutRecord, PayoutStatusReason } from '../model/payout-record.js';
import { PAYOUT_OPEN_STATUSES, type PayoutStatus } from '../model/payout-status.js';
import { ledgerMoveCtes } from './ledger.repository.js';
import { guardedSources, PAYOUT, PAYOUT_READ } from './payout-shapes.js';

/** A submission answered "paid" as PayoutOutcomeRepository.recordPaidSubmission writes it. */
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

/** The statuses a provider answer moves a payout to paid from (markPaid, recordPaidSubmission). */
const OPEN = PAYOUT_OPEN_STATUSES;

/** What a provider's answer about the payment sets, whatever it moves (`fromSubmission` bound). */
const answeredColumns = (fromSubmission: boolean): Sql => sql`last_checked_at = now(), provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
              submission_answered_at = CASE WHEN ${fromSubmission}::boolean THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END`;

/**
 * The payout's outcomes: what the provider's answers and lookups write on the payout row, and
 * its status moves, each guarded in the statement by the statuses the transition table
 * (model/payout-status.ts) allows the move from (moveStatus). Each runs under the payout's row
 * lock, taken by PayoutRepository.findForWorker(..., true).
 */
@Injectable()
export class PayoutOutcomeRepository {
  /**
   * The one guarded status update: `to` with the method's other `assignments`, only while the
   * payout is in one of the table's sources of `to` (or the narrower `from`). The rows RETURNING
   * gave: none when the guard refused.
   */
  private async moveStatus(
    manager: Queryable,
    payoutId: string,
    move: { to: PayoutStatus; from?: readonly PayoutStatus[] },
    assignments: Sql,
    returning: Sql = PAYOUT_READ,
  ): Promise<object[]> {
    // Each value is bound once: `to`, the id and the guard's sources here, each mark*'s own once in `assignments`.
    return updateReturning<object>(
      manager,
      sql`UPDATE payouts SET status = ${move.to}::text, ${assignments}, updated_at = now()
        WHERE id = ${payoutId}::uuid AND status = ANY(${guardedSources(move.to, move.from)}::text[]) RETURNING ${returning}`,
    );
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
    const wasPaid = sql`EXISTS (SELECT 1 FROM paid)`;
    const statement = sql`WITH locked AS (
         SELECT id AS locked_id, status AS locked_status, batch_id AS locked_batch_id, provider_reference AS locked_provider_reference
           FROM payouts WHERE id = ${paid.payoutId}::uuid FOR UPDATE
       ), paid AS (
         UPDATE payouts SET status = ${'paid' satisfies PayoutStatus}::text, status_reason = NULL, paid_at = ${paid.paidAt}::timestamptz, review_at = NULL, updated_at = now(),
                last_checked_at = now(), provider_reference = COALESCE(provider_reference, ${paid.providerReference}::text),
                provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0,
                submission_answered_at = COALESCE(submission_answered_at, now()), delivery_encrypted = COALESCE(${paid.deliveryEncrypted}::text, delivery_encrypted)
           FROM locked
          WHERE id = locked_id AND locked_status = ANY(${guardedSources('paid', OPEN)}::text[]) AND locked_batch_id IS NULL
            AND locked_provider_reference IS NOT DISTINCT FROM ${paid.knownProviderReference}::text
          RETURNING payouts.*
       ), contact AS (
         INSERT INTO payout_provider_contacts (payout_id, kind, outcome, http_status, summary)
         SELECT id, ${'submission'}::text, ${'paid'}::text, ${paid.contact.httpStatus}::int, ${paid.contact.summary}::text FROM paid
       ), ${ledgerMoveCtes({ kind: 'settle', vendorId: paid.vendorId, totalCents: paid.hold.cents, entries: [paid.hold] }, wasPaid)},
       ${webhookEventCtes(paid.event, wasPaid)},
       notified AS (SELECT pg_notify(${paid.notifyChannel}::text, id::text) FROM paid WHERE ${paid.notifyChannel}::text IS NOT NULL),
       delivery_read AS (
         INSERT INTO payout_delivery_reads (vendor_id, payout_id, token_id, channel)
         SELECT vendor_id, id, ${paid.deliveryRead?.tokenId ?? null}::uuid, ${paid.deliveryRead?.channel ?? null}::text FROM paid WHERE ${paid.deliveryRead?.tokenId ?? null}::uuid IS NOT NULL
       )
       SELECT ${PAYOUT_READ}, (SELECT count(*) FROM locked)::int AS "found", (SELECT count(*) FROM account)::int AS "settled",
              ${WEBHOOK_DELIVERIES_WRITTEN} AS "webhookDeliveries", (SELECT count(*) FROM notified)::int AS "notified"
         FROM (SELECT 1) one LEFT JOIN paid ON true`;
    const rows: Array<Record<string, unknown>> = await manager.query(statement.text, statement.values);
    const [row] = rows;
    if (row.id === null) return { applied: false, found: (row.found as number) > 0 };
    return { applied: true, payout: PAYOUT.read(row), settled: (row.settled as number) > 0, webhookDeliveries: row.webhookDeliveries as WebhookDeliveryWritten[] };
  }

  /** The submission got no usable answer: the attempt has ended now. Null for an unknown payout. */
  async markUnanswered(manager: Queryable, payoutId: string): Promise<PayoutRecord | null> {
    const rows = await updateReturning<object>(
      manager,
      sql`UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()),
              status_reason = CASE WHEN status = ${'pending' satisfies PayoutStatus}::text THEN ${'awaiting_provider' satisfies PayoutStatusReason}::text ELSE status_reason END, updated_at = now()
        WHERE id = ${payoutId}::uuid RETURNING ${PAYOUT_READ}`,
    );
    return PAYOUT.first(rows);
  }

  async markAnswered(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()) WHERE id = $1`, [payoutId]);
  }

  async markAwaitingProvider(manager: Queryable, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET status_reason = $2, updated_at = now() WHERE id = $1`, [payoutId, 'awaiting_provider' satisfies PayoutStatusReason]);
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
      sql`UPDATE payouts SET ${answeredColumns(fromSubmission)},
              status_reason = CASE WHEN ${fromSubmission}::boolean AND status = ${'pending' satisfies PayoutStatus}::text
                                   THEN ${'awaiting_provider' satisfies PayoutStatusReason}::text ELSE status_reason END
        WHERE id = ${payoutId}::uuid RETURNING ${PAYOUT_READ}`,
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
      sql`UPDATE payouts SET provider_reference = COALESCE(provider_reference, ${providerReference}::text), ${answeredColumns(fromSubmission)}
        WHERE id = ${payoutId}::uuid RETURNING provider_reference AS "providerReference", submission_answered_at AS "submissionAnsweredAt", provider_seen_at AS "providerSeenAt"`,
    );
    return rows[0];
  }

  /** Contact, status and delivery in one statement, guarded by the open statuses; null when the guard refused. */
  async markPaid(
    manager: Queryable,
    payoutId: string,
    paid: { paidAt: Date; providerReference: string | null; fromSubmission: boolean; deliveryEncrypted: string | null },
  ): Promise<PayoutRecord | null> {
    const rows = await this.moveStatus(
      manager,
      payoutId,
      { to: 'paid', from: OPEN },
      sql`status_reason = NULL, paid_at = ${paid.paidAt}::timestamptz, review_at = NULL,
              provider_reference = COALESCE(provider_reference, ${paid.providerReference}::text), ${answeredColumns(paid.fromSubmission)},
              delivery_encrypted = COALESCE(${paid.deliveryEncrypted}::text, delivery_encrypted)`,
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
    const rows = await this.moveStatus(
      manager,
      payoutId,
      { to: 'paid', from: ['failed'] },
      sql`status_reason = ${'paid_after_release' satisfies PayoutStatusReason}::text, paid_at = ${paid.paidAt}::timestamptz, last_checked_at = now(),
              provider_reference = COALESCE(provider_reference, ${paid.providerReference}::text), provider_seen_at = COALESCE(provider_seen_at, now()), not_found_streak = 0, next_poll_at = NULL`,
    );
    return PAYOUT.first(rows);
  }

  /**
   * needs_review → paid by two staff (an approved four-eyes proposal): no provider answer, so
   * none of the provider columns change; polls stop. Null when the guard refused.
   */
  async markPaidByStaff(manager: Queryable, payoutId: string): Promise<PayoutRecord | null> {
    const rows = await this.moveStatus(
      manager,
      payoutId,
      { to: 'paid', from: ['needs_review'] },
      sql`status_reason = ${'resolved_by_staff' satisfies PayoutStatusReason}::text, paid_at = now(), review_at = NULL, next_poll_at = NULL`,
    );
    return PAYOUT.first(rows);
  }

  /** pending | needs_review → failed; false when the guard refused. */
  async markFailed(manager: Queryable, payoutId: string, reason: 'provider_rejected' | 'not_received_by_provider' | 'resolved_by_staff'): Promise<boolean> {
    const rows = await this.moveStatus(manager, payoutId, { to: 'failed' }, sql`status_reason = ${reason}::text, failed_at = now(), next_poll_at = NULL`, sql`id`);
    return rows.length > 0;
  }

  /** paid → reversed; false when the guard refused. */
  async markReversed(manager: Queryable, payoutId: string, reversedAt: Date): Promise<boolean> {
    const rows = await this.moveStatus(
      manager,
      payoutId,
      { to: 'reversed' },
      sql`status_reason = ${'reversed_by_provider' satisfies PayoutStatusReason}::text, reversed_at = ${reversedAt}::timestamptz, next_poll_at = NULL`,
      sql`id`,
    );
    return rows.length > 0;
  }

  /** pending → needs_review (the hold stays reserved). */
  async markNeedsReview(manager: Queryable, payoutId: string): Promise<void> {
    await this.moveStatus(
      manager,
      payoutId,
      { to: 'needs_review' },
      sql`status_reason = ${'outcome_unknown' satisfies PayoutStatusReason}::text, review_at = now(), next_poll_at = NULL`,
      sql`id`,
    );
  }

  /** A pending payout never handed to a provider (the caller checked it under the row lock; the guard repeats the status). */
  async markCancelled(manager: Queryable, payoutId: string): Promise<void> {
    await this.moveStatus(manager, payoutId, { to: 'cancelled' }, sql`status_reason = ${'cancelled_by_operations' satisfies PayoutStatusReason}::text, next_poll_at = NULL`, sql`id`);
  }

  async storeDelivery(manager: Queryable, payoutId: string, deliveryEncrypted: string): Promise<void> {
    await manager.query(`UPDATE payouts SET delivery_encrypted = $2 WHERE id = $1`, [payoutId, deliveryEncrypted]);
  }
}
