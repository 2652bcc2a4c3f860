import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UUID_PATTERN, ValidationFailedError } from '#common';
import { formatCents, type Cents } from '#money';
import { PayoutLedgerService, type LedgerCorrectionKind } from '#payout';
import { ReconciliationExceptionDeskService, isExceptionResolutionKind, isMoneyResolution, type MoneyResolutionKind } from '#reconciliation';
import { OPERATOR_PROPOSED, ProposalKinds } from '../four-eyes/proposal-kinds.js';
import { StaffActionRefused } from '../model/errors.js';
import { requireZarCents } from '../model/proposals.js';

/** The staff audit trail's and the proposals' subject type of a reconciliation exception. */
export const EXCEPTION_SUBJECT = 'reconciliation_exception';

/** The amount of a money resolution: exact ZAR cents, at least one. */
export function correctionAmountOf(amount: unknown): Cents {
  return requireZarCents(amount, 'amount', 'Enter the amount in ZAR with two decimals, more than 0.00.', 1n);
}

/** A money resolution's ledger entry: recovered from the vendor debits, repaid to them credits; an adjustment goes the way chosen. */
export function entryKindOf(resolution: MoneyResolutionKind, direction: unknown): LedgerCorrectionKind {
  if (resolution === 'recovered_from_vendor') return 'adjust_debit';
  if (resolution === 'repaid_to_vendor') return 'adjust_credit';
  if (direction === 'debit') return 'adjust_debit';
  if (direction === 'credit') return 'adjust_credit';
  throw new ValidationFailedError({ direction: ['Choose debit (take from the vendor) or credit (give to the vendor).'] });
}

function moneyResolutionOf(value: unknown): MoneyResolutionKind {
  if (isExceptionResolutionKind(value) && isMoneyResolution(value)) return value;
  throw new ValidationFailedError({ resolution: ['Choose ledger_adjustment, recovered_from_vendor or repaid_to_vendor.'] });
}

/**
 * A resolution of a reconciliation exception that moves money (ledger_adjustment,
 * recovered_from_vendor, repaid_to_vendor), under four eyes: proposed by the exception's owner
 * with the amount and a reason, approved by another approver. The approval, the exception's
 * resolution and the ledger entry (adjust_debit / adjust_credit, naming the reason, the exception,
 * the proposal and the approver) commit in one transaction, once: the proposal row is locked
 * and decided first (FourEyes), the exception resolves only while open, and the ledger's unique
 * (proposal_id, kind) and (exception_id, kind) indexes refuse a second entry.
 */
@Injectable()
export class ExceptionProposalKinds implements OnModuleInit {
  constructor(
    private readonly kinds: ProposalKinds,
    private readonly desk: ReconciliationExceptionDeskService,
    private readonly ledger: PayoutLedgerService,
  ) {}

  onModuleInit(): void {
    this.kinds.register({
      kind: 'exception.resolve',
      auditAction: 'exception.resolved',
      ...OPERATOR_PROPOSED,
      prepare: async (manager: EntityManager, subjectId: string, params: Record<string, unknown>) => {
        const resolution = moneyResolutionOf(params.resolution);
        const entryKind = entryKindOf(resolution, params.direction);
        const cents = correctionAmountOf(params.amount);
        const item = UUID_PATTERN.test(subjectId) ? await this.desk.get(subjectId, manager) : null;
        if (!item) throw new ValidationFailedError({ exception: ['Unknown exception.'] });
        if (item.status !== 'open') throw new StaffActionRefused('The exception is already resolved.');
        if (!item.vendorId) throw new StaffActionRefused('The exception names no vendor: no payout account to correct. Resolve it as no_money_moves.');
        return {
          subjectType: EXCEPTION_SUBJECT,
          subjectId: item.id,
          vendorId: item.vendorId,
          params: { resolution, entry_kind: entryKind, amount: formatCents(cents), amount_cents: cents.toString(), exception_kind: item.kind, vendor_name: item.vendorName },
        };
      },
      execute: async (manager, proposal, approver) => {
        // FourEyes hands over the signed-in approver; the database records who approved by account.
        if (!approver.staffUserId) throw new StaffActionRefused('Only a signed-in staff member approves a correction.');
        const item = await this.desk.lock(manager, proposal.subjectId);
        if (!item || item.status !== 'open') throw new StaffActionRefused('The exception was resolved meanwhile: nothing moved.');
        const resolution = moneyResolutionOf(proposal.params.resolution);
        const kind = entryKindOf(resolution, proposal.params.entry_kind === 'adjust_debit' ? 'debit' : 'credit');
        const cents: Cents = BigInt(String(proposal.params.amount_cents));
        const resolved = await this.desk.resolve(manager, item.id, {
          kind: resolution,
          resolution: proposal.reason,
          resolvedBy: approver.label,
          resolvedByStaffId: approver.staffUserId,
          proposalId: proposal.id,
        });
        if (!resolved) throw new StaffActionRefused('The exception was resolved meanwhile: nothing moved.');
        // Last: the correction locks the vendor's account row until commit.
        await this.ledger.ensureAccount(manager, proposal.vendorId!);
        const balances = await this.ledger.correct(manager, {
          kind,
          vendorId: proposal.vendorId!,
          cents,
          payoutId: item.payoutId,
          reason: proposal.reason,
          exceptionId: item.id,
          proposalId: proposal.id,
          approvedBy: approver.label,
        });
        return {
          details: { resolution, entry_kind: kind, amount_cents: cents.toString(), exception_kind: item.kind, available_after_cents: balances.availableCents.toString() },
        };
      },
      describe: (proposal) => {
        const credit = proposal.params.entry_kind === 'adjust_credit';
        return `${String(proposal.params.resolution)}: ${credit ? 'credit' : 'debit'} ${String(proposal.params.vendor_name)}'s payout account ZAR ${String(proposal.params.amount)} (${String(proposal.params.exception_kind)} exception)`;
      },
    });
  }
}
