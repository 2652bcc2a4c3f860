import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { formatCents, type Cents } from '#money';
import type { LimitsView, SpendLimits } from '#purchase';
import { FourEyes, type Decider } from '../four-eyes/four-eyes.service.js';
import { StaffPermissionDenied } from '../model/errors.js';
import { requireReason, type Proposal } from '../model/proposals.js';
import type { StaffActor } from '../model/staff.js';
import { staffRoleAllows } from '../model/staff-roles.js';
import { VendorOperations } from './vendor-operations.service.js';
import { amountOf, limitParamsOf, limitsFromForm } from './vendor-proposal-kinds.js';

/** Applied at once by one person, or waiting for a second as a proposal. */
export type FundingOutcome = { applied: true } | { applied: false; proposal: Proposal };

/** The operator CLI's answer: what was applied at once, or the proposal that now waits for a second person. */
export type CliOutcome<T> = { applied: true; result: T } | { applied: false; proposal: Proposal };

/**
 * Who proposes from the CLI, asked only when a proposal is needed: the CLI proves a staff
 * account (its authenticator code, used once) and answers it as the proposer. The OS user who
 * ran the command is not a person the back-office knows, so it cannot be the proposer itself.
 */
export type CliProposer = () => Promise<Decider>;

/**
 * Funding a vendor's prefunded payout account from the back-office: at or below
 * STAFF_FOUR_EYES_ABOVE_CENTS one operator credits it (the ledger entry and the `payout.funded`
 * audit record commit together, as `ops payout:fund` does); above it, a four-eyes proposal.
 */
@Injectable()
export class VendorFunding {
  constructor(
    private readonly config: GatewayEnv,
    private readonly fourEyes: FourEyes,
    private readonly operations: VendorOperations,
  ) {}

  /**
   * Spend limits from the back-office form (amounts in ZAR, limitsFromForm): raising the daily cap
   * or the per-purchase maximum to more than STAFF_FOUR_EYES_ABOVE_CENTS is a `limits.set`
   * proposal (its params in cents); lowering them, or raising them within the threshold (and the
   * velocity settings), applies at once with its audit record. Whether it is a raise is decided
   * against the limits read after the vendor's row is locked, in the transaction that applies the
   * change (VendorOperations.setLimits).
   */
  async setLimits(vendorId: string, form: Record<string, unknown>, reason: unknown, actor: Decider): Promise<FundingOutcome> {
    if (!staffRoleAllows(actor.role, 'actions:propose')) throw new StaffPermissionDenied(`Your role (${actor.role}) cannot change limits.`);
    const limits = limitsFromForm(form);
    const applied = await this.operations.setLimits(vendorId, limits, requireReason(reason), actor, (current) => this.raisesAboveThreshold(limits, current));
    if (applied) return { applied: true };
    return { applied: false, proposal: await this.fourEyes.propose('limits.set', vendorId, limitParamsOf(limits), reason, actor) };
  }

  /**
   * `ops limits:set`: the page's rule on the CLI. Within the threshold (and every lowering) the
   * operator's change applies at once with its `limits.set` record (actor `ops:<user>`); a raise of
   * the daily cap or the per-purchase maximum above it writes nothing and becomes a `limits.set`
   * proposal by the staff member the CLI verified, which another approver approves in the back-office.
   */
  async setLimitsFromCli(vendorId: string, limits: SpendLimits, reason: string | null, operator: StaffActor, proposer: CliProposer): Promise<CliOutcome<LimitsView>> {
    const applied = await this.operations.setLimits(vendorId, limits, reason, operator, (current) => this.raisesAboveThreshold(limits, current));
    if (applied) return { applied: true, result: applied };
    const decider = await proposer();
    return { applied: false, proposal: await this.fourEyes.propose('limits.set', vendorId, limitParamsOf(limits), reason, decider, cliContext(operator)) };
  }

  /**
   * `ops payout:fund`: at or below STAFF_FOUR_EYES_ABOVE_CENTS the operator credits the account at
   * once, as the page's funding does (`payout.funded`, actor `ops:<user>`, the threshold in its
   * details); above it nothing is credited: a `payout.fund` proposal by the verified staff member
   * (the note, the bank reference, is its reason) waits for another approver in the back-office.
   */
  async fundFromCli(vendorId: string, cents: Cents, note: string | null, operator: StaffActor, proposer: CliProposer) {
    const threshold = this.config.STAFF_FOUR_EYES_ABOVE_CENTS;
    if (cents > BigInt(threshold)) {
      const decider = await proposer();
      const proposal = await this.fourEyes.propose('payout.fund', vendorId, { amount: formatCents(cents) }, note, decider, cliContext(operator));
      return { applied: false, proposal } as const;
    }
    const balances = await this.operations.fund(vendorId, cents, note, note, operator, { four_eyes_above_cents: String(threshold) });
    return { applied: true, result: balances } as const;
  }

  /** Whether a change to these limits raises the daily cap or the per-purchase maximum above the threshold (judged on the limits read under the vendor's lock). */
  private raisesAboveThreshold(limits: SpendLimits, current: LimitsView): boolean {
    const threshold = this.config.STAFF_FOUR_EYES_ABOVE_CENTS;
    const raisedAbove = (next: number, previous: number | null) => next > (previous ?? 0) && next > threshold;
    return raisedAbove(limits.dailyCapMinor, current.daily_cap_minor) || raisedAbove(limits.transactionMaxMinor, current.transaction_max_minor);
  }

  async fund(vendorId: string, amount: unknown, reason: unknown, actor: Decider): Promise<FundingOutcome> {
    if (!staffRoleAllows(actor.role, 'actions:propose')) throw new StaffPermissionDenied(`Your role (${actor.role}) cannot fund a payout account.`);
    const cents = amountOf({ amount });
    if (cents > BigInt(this.config.STAFF_FOUR_EYES_ABOVE_CENTS)) {
      return { applied: false, proposal: await this.fourEyes.propose('payout.fund', vendorId, { amount }, reason, actor) };
    }
    const written = requireReason(reason);
    await this.operations.fund(vendorId, cents, `back-office funding: ${written}`, written, actor, { four_eyes_above_cents: String(this.config.STAFF_FOUR_EYES_ABOVE_CENTS) });
    return { applied: true };
  }
}

/** What the `proposal.created` record keeps of a CLI proposal: it came from the CLI, run by this OS user (or OPS_ACTOR). */
function cliContext(operator: StaffActor): Record<string, unknown> {
  return { via: 'ops', ops_actor: operator.label };
}
