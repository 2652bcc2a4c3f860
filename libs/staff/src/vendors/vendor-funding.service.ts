import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { FourEyes, type Decider } from '../four-eyes/four-eyes.service.js';
import { StaffPermissionDenied } from '../model/errors.js';
import { requireReason, type Proposal } from '../model/proposals.js';
import { staffRoleAllows } from '../model/staff-roles.js';
import { VendorOperations } from './vendor-operations.service.js';
import { amountOf, limitParamsOf, limitsFromForm } from './vendor-proposal-kinds.js';

/** Applied at once by one person, or waiting for a second as a proposal. */
export type FundingOutcome = { applied: true } | { applied: false; proposal: Proposal };

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
    const threshold = this.config.STAFF_FOUR_EYES_ABOVE_CENTS;
    const raisedAbove = (next: number, previous: number | null) => next > (previous ?? 0) && next > threshold;
    const applied = await this.operations.setLimits(
      vendorId,
      limits,
      requireReason(reason),
      actor,
      (current) => raisedAbove(limits.dailyCapMinor, current.daily_cap_minor) || raisedAbove(limits.transactionMaxMinor, current.transaction_max_minor),
    );
    if (applied) return { applied: true };
    return { applied: false, proposal: await this.fourEyes.propose('limits.set', vendorId, limitParamsOf(limits), reason, actor) };
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
