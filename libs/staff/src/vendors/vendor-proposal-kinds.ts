import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ValidationFailedError } from '#common';
import { VendorService } from '#auth';
import { formatCents, parseZarAmount2dp, type Cents } from '#money';
import { PayoutLedger } from '#payout';
import { ProposalKinds } from '../four-eyes/proposal-kinds.js';

export function amountOf(params: Record<string, unknown>): Cents {
  try {
    const cents = parseZarAmount2dp(String(params.amount ?? ''));
    if (cents > 0n) return cents;
  } catch {
    // Reported below with the field's message.
  }
  throw new ValidationFailedError({ amount: ['Enter a positive ZAR amount with two decimals, e.g. 1000.00.'] });
}

/**
 * Vendor operations that move money, under four eyes: crediting a vendor's prefunded payout
 * account (the ops CLI's `payout:fund`) is proposed with the bank reference as its reason and
 * credited, through the ledger's own `fund`, in the approval's transaction.
 */
@Injectable()
export class VendorProposalKinds implements OnModuleInit {
  constructor(
    private readonly kinds: ProposalKinds,
    private readonly vendors: VendorService,
    private readonly ledger: PayoutLedger,
  ) {}

  onModuleInit(): void {
    this.kinds.register({
      kind: 'payout.fund',
      auditAction: 'payout.funded',
      proposePermission: 'actions:propose',
      approvePermission: 'actions:approve',
      prepare: async (_manager, subjectId, params) => {
        const cents = amountOf(params);
        const vendor = await this.vendors.get(subjectId);
        return { subjectType: 'vendor', subjectId: vendor.id, vendorId: vendor.id, params: { amount: formatCents(cents), amount_cents: cents.toString(), vendor_name: vendor.name } };
      },
      execute: async (manager, proposal) => {
        const cents = amountOf(proposal.params);
        const balances = await this.ledger.fund(proposal.subjectId, cents, `back-office funding, proposal ${proposal.id}: ${proposal.reason}`.slice(0, 500), manager);
        return { details: { amount_cents: cents.toString(), available_after_cents: balances.availableCents.toString() } };
      },
      describe: (proposal) => `Fund ${String(proposal.params.vendor_name)}'s payout account with ZAR ${String(proposal.params.amount)}`,
    });
  }
}
