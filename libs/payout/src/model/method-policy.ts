import type { Cents } from '#money';
import type { PayoutMethodDefinition } from './payout-method-catalogue.js';

/** What one vendor may send through one method right now. */
export interface EffectiveMethodPolicy {
  definition: PayoutMethodDefinition;
  minimumCents: Cents;
  maximumCents: Cents;
  incrementCents: Cents;
  feeCents: Cents;
}

/** A vendor's switch, fee and optional tightened limits for one method; no record means disabled. */
export interface VendorMethodRecord {
  method: string;
  enabled: boolean;
  /** Explicit per-method fee; null falls back to zero (vouchers) or the account's fee_per_payout. */
  feeCents: Cents | null;
  minimumCents: Cents | null;
  maximumCents: Cents | null;
}

/** Fee precedence (payout contract, Fees): the vendor's per-method fee, else zero for vouchers, else the account's fee_per_payout. */
export function effectiveFeeCents(definition: PayoutMethodDefinition, vendorMethodFeeCents: Cents | null, accountFeeCents: Cents): Cents {
  if (vendorMethodFeeCents !== null) return vendorMethodFeeCents;
  return definition.kind === 'voucher' ? 0n : accountFeeCents;
}

export function policyOf(definition: PayoutMethodDefinition, record: VendorMethodRecord | undefined, accountFee: Cents): EffectiveMethodPolicy {
  const vendorMin = record?.minimumCents ?? null;
  const vendorMax = record?.maximumCents ?? null;
  return {
    definition,
    // Vendor limits only ever tighten the catalogue's.
    minimumCents: vendorMin !== null && vendorMin > definition.minimumCents ? vendorMin : definition.minimumCents,
    maximumCents: vendorMax !== null && vendorMax < definition.maximumCents ? vendorMax : definition.maximumCents,
    incrementCents: definition.incrementCents,
    feeCents: effectiveFeeCents(definition, record?.feeCents ?? null, accountFee),
  };
}
