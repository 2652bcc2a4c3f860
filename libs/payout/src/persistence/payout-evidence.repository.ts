import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, type Queryable } from '#database';
import type { ClosedWithoutLine } from '#providers';
import type { PayoutContact, ProviderContactEntry } from '../model/payout-evidence.js';
import type { DeliveryReadChannel, SmsResendOutcome } from '../model/payout-record.js';
import type { PayoutStatus } from '../model/payout-status.js';
import { statusLiteral } from './payout-shapes.js';

/** A payout a settlement report leaves unnamed: its amount and provider reference, as the report would carry them. */
const CLOSED_WITHOUT_LINE = readShape<ClosedWithoutLine<PayoutStatus>>({
  id: 'p.id', vendorId: 'p.vendor_id', status: 'p.status', amountCents: 'p.amount_cents::text', providerReference: 'p.provider_reference',
});

/**
 * The payout's evidence and audit trails: its exchanges with the provider
 * (`payout_provider_contacts`), the delivery-read audit, the SMS resends, and what a provider's
 * settlement report leaves unnamed. Append-only tables, each write its own statement.
 */
@Injectable()
export class PayoutEvidenceRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The payout's provider trail, oldest first: every submission and lookup and what the provider said. */
  async contacts(payoutId: string, manager: Queryable = this.dataSource.manager): Promise<PayoutContact[]> {
    return manager.query(
      `SELECT kind, outcome, http_status AS "httpStatus", summary, at FROM payout_provider_contacts WHERE payout_id = $1 ORDER BY id`,
      [payoutId],
    );
  }

  /** Appends one exchange to the payout's provider trail (append-only table). */
  async appendContact(manager: Queryable, contact: ProviderContactEntry): Promise<void> {
    await manager.query(`INSERT INTO payout_provider_contacts (payout_id, kind, outcome, http_status, summary) VALUES ($1, $2, $3, $4, $5)`, [
      contact.payoutId,
      contact.kind,
      contact.outcome,
      contact.httpStatus,
      contact.summary,
    ]);
  }

  /**
   * Payouts by one of `methods` paid (or reversed) in [from, to) that no line of the settlement
   * report names, with the amount and provider reference as the report would carry them.
   */
  async closedWithoutSettlementLine(reportId: string, from: Date, to: Date, methods: readonly string[]): Promise<ClosedWithoutLine<PayoutStatus>[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${CLOSED_WITHOUT_LINE.columns}
         FROM payouts p
        WHERE p.method = ANY($4::text[]) AND p.status IN (${statusLiteral('paid').sql}, ${statusLiteral('reversed').sql})
          AND ((p.paid_at >= $2 AND p.paid_at < $3) OR (p.status = ${statusLiteral('reversed').sql} AND p.reversed_at >= $2 AND p.reversed_at < $3))
          AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.report_id = $1 AND l.payout_id = p.id)`,
      [reportId, from, to, methods],
    );
    return rows.map(CLOSED_WITHOUT_LINE.read);
  }

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
