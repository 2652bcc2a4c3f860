import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ValidationFailedError } from '#common';
import { VendorService } from '#auth';
import { formatCents, minorUnitsFromCents, parseZarAmount2dp, type Cents } from '#money';
import { moneyFromCents, moneyFromDecimal } from '#web';
import { PayoutLedgerService } from '#payout';
import type { SpendLimits } from '#purchase';
import { VendorOperations } from './vendor-operations.service.js';
import { OPERATOR_PROPOSED, ProposalKinds, type PreparedProposal } from '../four-eyes/proposal-kinds.js';
import { requireZarCents } from '../model/proposals.js';

export function amountOf(params: Record<string, unknown>): Cents {
  return requireZarCents(params.amount, 'amount', 'Enter a positive ZAR amount with two decimals, e.g. 1000.00.', 1n);
}

const LIMIT_FIELDS = { dailyCapMinor: 'daily_cap_minor', transactionMaxMinor: 'transaction_max_minor', velocityCount: 'velocity_count', velocityWindowSeconds: 'velocity_window_seconds' } as const;

/** Spend limits from a `limits.set` proposal's params (integers as decimal strings, cents for amounts); PurchaseSpendControlsService checks their ranges. */
export function limitsOf(params: Record<string, unknown>): SpendLimits {
  const problems: Record<string, string[]> = {};
  const limits = {} as SpendLimits;
  for (const [key, field] of Object.entries(LIMIT_FIELDS) as [keyof SpendLimits, string][]) {
    const value = String(params[field] ?? '').trim();
    if (/^\d{1,15}$/.test(value)) limits[key] = Number(value);
    else problems[field] = ['Enter a whole number (cents for amounts).'];
  }
  if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
  return limits;
}

/** A `limits.set` proposal's params for these limits: what limitsOf reads back. */
export function limitParamsOf(limits: SpendLimits): Record<string, string> {
  return Object.fromEntries(Object.entries(LIMIT_FIELDS).map(([key, field]) => [field, String(limits[key as keyof SpendLimits])]));
}

/**
 * Spend limits from the back-office form: the daily cap (`daily_cap`) and the per-purchase maximum
 * (`transaction_max`) in ZAR with two decimals like every money field there, read exactly into
 * cents (no floating point: "12.34" is 1234 cents, "1.234" is refused); the velocity settings
 * as whole numbers. PurchaseSpendControlsService checks the ranges.
 */
export function limitsFromForm(form: Record<string, unknown>): SpendLimits {
  const problems: Record<string, string[]> = {};
  const zar = (field: string, label: string, least: Cents): number => {
    try {
      const cents = parseZarAmount2dp(String(form[field] ?? '').trim());
      if (cents >= least) return minorUnitsFromCents(cents);
    } catch {
      // Reported below with the field's message.
    }
    problems[field] = [`Enter ${label} in ZAR with two decimals (no more), e.g. 1000.00.`];
    return 0;
  };
  const whole = (field: string): number => {
    const value = String(form[field] ?? '').trim();
    if (/^\d{1,15}$/.test(value)) return Number(value);
    problems[field] = ['Enter a whole number.'];
    return 0;
  };
  const limits: SpendLimits = {
    dailyCapMinor: zar('daily_cap', 'the daily cap', 0n),
    transactionMaxMinor: zar('transaction_max', 'the per-purchase maximum', 1n),
    velocityCount: whole('velocity_count'),
    velocityWindowSeconds: whole('velocity_window_seconds'),
  };
  if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
  return limits;
}

/**
 * Vendor operations that move money, under four eyes: crediting a vendor's prefunded payout
 * account (the ops CLI's `payout:fund`) is proposed with the bank reference as its reason and
 * credited, through the ledger's own `fund`, in the approval's transaction; raising a vendor's
 * spend limits above STAFF_FOUR_EYES_ABOVE_CENTS (`limits.set`) likewise waits for an approver.
 */
@Injectable()
export class VendorProposalKinds implements OnModuleInit {
  constructor(
    private readonly kinds: ProposalKinds,
    private readonly vendors: VendorService,
    private readonly ledger: PayoutLedgerService,
    private readonly operations: VendorOperations,
  ) {}

  onModuleInit(): void {
    this.kinds.register({
      kind: 'payout.fund',
      auditAction: 'payout.funded',
      ...OPERATOR_PROPOSED,
      prepare: async (_manager, subjectId, params) => {
        const cents = amountOf(params);
        return this.onVendor(subjectId, { amount: formatCents(cents), amount_cents: cents.toString() });
      },
      execute: async (manager, proposal) => {
        // The vendor's row first, as every direct vendor operation takes it (same lock order, and
        // no other change to this vendor runs alongside the approved one).
        await this.vendors.read(proposal.subjectId, manager);
        const cents = amountOf(proposal.params);
        const balances = await this.ledger.fund(proposal.subjectId, cents, `back-office funding, proposal ${proposal.id}: ${proposal.reason}`.slice(0, 500), manager);
        return { details: { amount_cents: cents.toString(), available_after_cents: balances.availableCents.toString() } };
      },
      describe: (proposal) => `Fund ${String(proposal.params.vendor_name)}'s payout account with ${moneyFromDecimal(String(proposal.params.amount))}`,
    });
    this.kinds.register({
      kind: 'limits.set',
      auditAction: 'limits.set',
      ...OPERATOR_PROPOSED,
      prepare: async (_manager, subjectId, params) => {
        return this.onVendor(subjectId, limitParamsOf(limitsOf(params)));
      },
      // In the approval's transaction: the limits, the proposal's decision and the audit record commit together or not at all.
      execute: async (manager, proposal) => {
        await this.vendors.read(proposal.subjectId, manager);
        const { before, after } = await this.operations.changeLimits(proposal.subjectId, limitsOf(proposal.params), manager);
        return { details: { before, after } };
      },
      describe: (proposal) => {
        const zar = (field: string) => moneyFromCents(BigInt(String(proposal.params[field])));
        return `Set ${String(proposal.params.vendor_name)}'s limits: daily ${zar('daily_cap_minor')}, per purchase ${zar('transaction_max_minor')}`;
      },
    });
  }

  /** A proposal about an existing vendor, its name kept for the description. */
  private async onVendor(subjectId: string, params: Record<string, unknown>): Promise<PreparedProposal> {
    const vendor = await this.vendors.get(subjectId);
    return { subjectType: 'vendor', subjectId: vendor.id, vendorId: vendor.id, params: { ...params, vendor_name: vendor.name } };
  }
}
