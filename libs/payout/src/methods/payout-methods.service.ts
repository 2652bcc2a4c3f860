import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { formatCents, type Cents } from '#money';
import { policyOf, type EffectiveMethodPolicy, type VendorMethodRecord } from '../model/method-policy.js';
import { PayoutReadiness } from '../model/payout-readiness.js';
import { PAYOUT_METHOD_CATALOGUE, PAYOUT_METHODS, isPayoutMethod, type PayoutMethod } from '../model/payout-method-catalogue.js';
import { LedgerRepository } from '../persistence/ledger.repository.js';
import { VendorPayoutMethodRepository } from '../persistence/vendor-payout-method.repository.js';

/** `GET /api/v1/methods` item (payout contract, Method). */
export interface MethodView {
  method: PayoutMethod;
  name: string;
  minimum: string;
  maximum: string;
  increment: string;
  available: boolean;
  requires_bank_account: boolean;
  kind: 'cash' | 'bank' | 'voucher';
  delivery: 'pin' | null;
  fee: string;
}

/** A limit given as null removes the vendor's own limit (the catalogue limit applies). */
export type MethodLimitsChange = Partial<Pick<VendorMethodRecord, 'minimumCents' | 'maximumCents'>>;

export interface MethodConfigurationChange {
  enable?: readonly string[];
  disable?: readonly string[];
  /** Per-method vendor fee in cents; null removes it (fallback: zero for vouchers, else the account's fee_per_payout). */
  fees?: Readonly<Record<string, Cents | null>>;
  limits?: Readonly<Record<string, MethodLimitsChange>>;
}

/** Ops view of one method for one vendor (all seven, enabled or not). */
export interface VendorMethodSetting {
  method: PayoutMethod;
  enabled: boolean;
  feeCents: Cents | null;
  effectiveFeeCents: Cents;
  minimumCents: Cents;
  maximumCents: Cents;
}

/** Enabled methods only, with limits tightened by the vendor's rows and the effective fee. */
export function methodPoliciesOf(rows: ReadonlyMap<string, VendorMethodRecord>, accountFee: Cents): Map<PayoutMethod, EffectiveMethodPolicy> {
  const policies = new Map<PayoutMethod, EffectiveMethodPolicy>();
  for (const method of PAYOUT_METHODS) {
    const row = rows.get(method);
    if (row?.enabled) policies.set(method, policyOf(PAYOUT_METHOD_CATALOGUE[method], row, accountFee));
  }
  return policies;
}

@Injectable()
export class PayoutMethodsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly vendorMethods: VendorPayoutMethodRepository,
    private readonly accounts: LedgerRepository,
    private readonly readiness: PayoutReadiness,
  ) {}

  /** Enabled methods only, with limits tightened by the vendor's settings and the effective fee. */
  async policiesFor(vendorId: string): Promise<Map<PayoutMethod, EffectiveMethodPolicy>> {
    const [rows, accountFee] = await Promise.all([this.vendorMethods.forVendor(vendorId), this.accounts.feePerPayout(vendorId)]);
    return methodPoliciesOf(rows, accountFee);
  }

  async listMethodViews(vendorId: string): Promise<MethodView[]> {
    const available = this.readiness.canMovePayouts();
    return [...(await this.policiesFor(vendorId)).values()].map((policy) => ({
      method: policy.definition.method,
      name: policy.definition.name,
      minimum: formatCents(policy.minimumCents),
      maximum: formatCents(policy.maximumCents),
      increment: formatCents(policy.incrementCents),
      available,
      requires_bank_account: policy.definition.requiresBankAccount,
      kind: policy.definition.kind,
      delivery: policy.definition.delivery,
      fee: formatCents(policy.feeCents),
    }));
  }

  /**
   * Ops `payout:methods`: enable/disable, per-method fees and tightened limits, in one transaction
   * (the caller's when `into` is given, so the staff audit record commits with the change).
   */
  async configure(vendorId: string, change: MethodConfigurationChange, into?: EntityManager): Promise<VendorMethodSetting[]> {
    const problems = validateChange(change);
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    const run = (work: (manager: EntityManager) => Promise<void>) => (into ? work(into) : this.dataSource.transaction(work));
    await run(async (manager) => {
      const touched = new Set<string>([
        ...(change.enable ?? []),
        ...(change.disable ?? []),
        ...Object.keys(change.fees ?? {}),
        ...Object.keys(change.limits ?? {}),
      ]);
      try {
        for (const method of touched) {
          await this.vendorMethods.ensureRow(manager, vendorId, method);
        }
      } catch (error) {
        if ((error as { code?: string }).code === '23503') throw new NotFoundError('vendor');
        throw error;
      }
      for (const method of change.enable ?? []) await this.vendorMethods.setEnabled(manager, vendorId, method, true);
      for (const method of change.disable ?? []) await this.vendorMethods.setEnabled(manager, vendorId, method, false);
      for (const [method, fee] of Object.entries(change.fees ?? {})) await this.vendorMethods.setFee(manager, vendorId, method, fee);
      for (const [method, limits] of Object.entries(change.limits ?? {})) {
        const current = await this.vendorMethods.lockLimits(manager, vendorId, method);
        const minimum = limits.minimumCents !== undefined ? limits.minimumCents : current.minimumCents;
        const maximum = limits.maximumCents !== undefined ? limits.maximumCents : current.maximumCents;
        if (minimum !== null && maximum !== null && minimum > maximum) throw new ValidationFailedError({ [`limits.${method}`]: ['minimum must not exceed maximum'] });
        await this.vendorMethods.setLimits(manager, vendorId, method, minimum, maximum);
      }
    });
    return this.settingsOf(vendorId, into);
  }

  /** Every method on (demo seed). */
  async enableAll(vendorId: string): Promise<VendorMethodSetting[]> {
    return this.configure(vendorId, { enable: PAYOUT_METHODS });
  }

  async settingsOf(vendorId: string, manager?: EntityManager): Promise<VendorMethodSetting[]> {
    const rows = await this.vendorMethods.forVendor(vendorId, manager);
    const accountFee = await this.accounts.feePerPayout(vendorId, manager);
    return PAYOUT_METHODS.map((method) => {
      const row = rows.get(method);
      const policy = policyOf(PAYOUT_METHOD_CATALOGUE[method], row, accountFee);
      return {
        method,
        enabled: row?.enabled ?? false,
        feeCents: row?.feeCents ?? null,
        effectiveFeeCents: policy.feeCents,
        minimumCents: policy.minimumCents,
        maximumCents: policy.maximumCents,
      };
    });
  }
}

function validateChange(change: MethodConfigurationChange): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const add = (field: string, message: string) => (problems[field] = [...(problems[field] ?? []), message]);
  for (const method of [...(change.enable ?? []), ...(change.disable ?? [])]) {
    if (!isPayoutMethod(method)) add('methods', `unknown method ${method}; known: ${PAYOUT_METHODS.join(', ')}`);
  }
  const both = (change.enable ?? []).filter((method) => (change.disable ?? []).includes(method));
  if (both.length > 0) add('methods', `both enabled and disabled: ${both.join(', ')}`);
  for (const [method, fee] of Object.entries(change.fees ?? {})) {
    if (!isPayoutMethod(method)) add(`fees.${method}`, 'unknown method');
    else if (fee !== null && (typeof fee !== 'bigint' || fee < 0n)) add(`fees.${method}`, 'fee must be zero or positive');
  }
  for (const [method, limits] of Object.entries(change.limits ?? {})) {
    if (!isPayoutMethod(method)) {
      add(`limits.${method}`, 'unknown method');
      continue;
    }
    const definition = PAYOUT_METHOD_CATALOGUE[method];
    for (const [name, value] of [['minimum', limits.minimumCents], ['maximum', limits.maximumCents]] as const) {
      if (value === undefined || value === null) continue;
      if (value < definition.minimumCents || value > definition.maximumCents) {
        add(`limits.${method}`, `${name} must be within ${formatCents(definition.minimumCents)} and ${formatCents(definition.maximumCents)} (limits can only be tightened)`);
      } else if (value % definition.incrementCents !== 0n) {
        add(`limits.${method}`, `${name} must be a multiple of ${formatCents(definition.incrementCents)}`);
      }
    }
    if (limits.minimumCents != null && limits.maximumCents != null && limits.minimumCents > limits.maximumCents) {
      add(`limits.${method}`, 'minimum must not exceed maximum');
    }
  }
  return problems;
}
