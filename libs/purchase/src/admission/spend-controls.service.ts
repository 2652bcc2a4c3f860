import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { johannesburgDayOf, NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue, minorUnitsFromCents, type Cents } from '#money';
import type { SpendLimits } from '../model/spend-limits.js';
import { isUuid } from '../model/uuid-pattern.js';
import { SpendControlsRepository, type SpendControlsRow } from '../persistence/spend-controls.repository.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';
import { PurchaseVendorsRepository } from '../persistence/vendors.repository.js';
import {
  DailyCapExceededError,
  PurchasesPausedError,
  SpendControlsNotConfiguredError,
  TransactionMaximumExceededError,
  VelocityLimitExceededError,
} from '../model/spend-control.errors.js';

/** Limits as the admission checks read them, with the vendor's row locked for the transaction. */
export interface ConfiguredSpendControls {
  dailyCapCents: Cents;
  transactionMaxCents: Cents;
  velocityCount: number;
  velocityWindowSeconds: number;
}

export interface PauseState {
  scope: 'global' | 'vendor';
  vendor_id: string | null;
  paused: boolean;
  paused_at: string | null;
}

/** GET /limits. */
export interface LimitsView {
  configured: boolean;
  currency: 'ZAR';
  /** The Africa/Johannesburg day the allowance figures are for. */
  day: string;
  daily_cap_minor: number | null;
  used_today_minor: number;
  remaining_today_minor: number | null;
  transaction_max_minor: number | null;
  velocity_count: number | null;
  velocity_window_seconds: number | null;
  purchases_paused: boolean;
  /** `global` when staff paused every vendor, `vendor` for this vendor alone, else null. */
  paused_scope: 'global' | 'vendor' | null;
}

/** The longest velocity window; the per-second counters are kept this long (PurchaseSweeper). */
export const MAX_VELOCITY_WINDOW_SECONDS = 7 * 86_400;

/**
 * Spend controls: staff set them (setLimits, pause, resume) and the admission of every purchase
 * checks them inside its own database transaction (the `check*` and `consume*` methods take
 * that transaction's manager).
 */
@Injectable()
export class SpendControlsService {
  constructor(
    private readonly controls: SpendControlsRepository,
    private readonly transactions: TransactionsRepository,
    private readonly vendors: PurchaseVendorsRepository,
  ) {}

  /** `manager`: the caller's transaction, so a staff change commits with its audit record (or an approved proposal with its approval). */
  async setLimits(vendorId: string, limits: SpendLimits, manager?: EntityManager): Promise<LimitsView> {
    const problems: Record<string, string[]> = {};
    const check = (name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
      if (!Number.isSafeInteger(value) || value < min || value > max) problems[name] = [`must be an integer from ${min} to ${max}`];
    };
    check('daily_cap_minor', limits.dailyCapMinor, 0);
    check('transaction_max_minor', limits.transactionMaxMinor, 1);
    check('velocity_count', limits.velocityCount, 1, 1_000_000);
    check('velocity_window_seconds', limits.velocityWindowSeconds, 1, MAX_VELOCITY_WINDOW_SECONDS);
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    await this.requireVendor(vendorId, manager);
    await this.controls.saveLimits(vendorId, limits, manager);
    return this.limitsFor(vendorId, manager);
  }

  /** Pauses new purchases for one vendor, or for everyone when vendorId is null. Existing purchases carry on. */
  async pause(vendorId: string | null, manager?: EntityManager): Promise<PauseState> {
    return this.setPaused(vendorId, true, manager);
  }

  async resume(vendorId: string | null, manager?: EntityManager): Promise<PauseState> {
    return this.setPaused(vendorId, false, manager);
  }

  /** Whether purchases are paused for everyone (the platform switch). */
  async globallyPaused(manager?: EntityManager): Promise<boolean> {
    return (await this.controls.globalPausedAt(manager)) !== null;
  }

  async limitsFor(vendorId: string, manager?: EntityManager): Promise<LimitsView> {
    const day = johannesburgDayOf(await this.controls.now(manager));
    const controls = await this.controls.controls(vendorId, manager);
    const globalPausedAt = await this.controls.globalPausedAt(manager);
    const usedCents = await this.controls.usedCents(vendorId, day, manager);
    const used = usedCents !== undefined ? centsFromDbValue(usedCents) : 0n;
    const cap = controls?.daily_cap_cents != null ? centsFromDbValue(controls.daily_cap_cents) : null;
    const pausedScope = globalPausedAt ? 'global' : controls?.paused_at ? 'vendor' : null;
    return {
      configured: configuredControls(controls) !== null,
      currency: 'ZAR',
      day,
      daily_cap_minor: cap === null ? null : minorUnitsFromCents(cap),
      used_today_minor: minorUnitsFromCents(used),
      remaining_today_minor: cap === null ? null : minorUnitsFromCents(cap > used ? cap - used : 0n),
      transaction_max_minor: controls?.transaction_max_cents != null ? minorUnitsFromCents(centsFromDbValue(controls.transaction_max_cents)) : null,
      velocity_count: controls?.velocity_count ?? null,
      velocity_window_seconds: controls?.velocity_window_seconds ?? null,
      purchases_paused: pausedScope !== null,
      paused_scope: pausedScope,
    };
  }

  /**
   * Admission: refuses when paused or unconfigured, and locks the vendor's controls row so that
   * admissions of one vendor serialise from here to commit (velocity and allowance stay exact).
   */
  async lockForAdmission(manager: EntityManager, vendorId: string): Promise<ConfiguredSpendControls> {
    // The global switch is read in the same statement; only the vendor's row is locked (FOR UPDATE OF c).
    const controls = await this.controls.lockForAdmission(manager, vendorId);
    const globalPausedAt = controls ? controls.global_paused_at : await this.controls.globalPausedAt(manager);
    if (globalPausedAt) throw new PurchasesPausedError('global');
    if (controls?.paused_at) throw new PurchasesPausedError('vendor');
    const configured = configuredControls(controls);
    if (!configured) throw new SpendControlsNotConfiguredError();
    return configured;
  }

  checkTransactionMaximum(controls: ConfiguredSpendControls, chargeCents: Cents): void {
    if (chargeCents > controls.transactionMaxCents) throw new TransactionMaximumExceededError(minorUnitsFromCents(controls.transactionMaxCents));
  }

  private async refuseVelocity(manager: EntityManager, vendorId: string, controls: ConfiguredSpendControls, now: Date, windowStart: Date, count: number): Promise<never> {
    // The admission that must leave the window before one more fits.
    const blockingAt = await this.transactions.admissionTimeAt(manager, vendorId, windowStart, count - controls.velocityCount);
    const leavesAt = new Date(blockingAt).getTime() + controls.velocityWindowSeconds * 1000;
    throw new VelocityLimitExceededError(Math.max(1, Math.ceil((leavesAt - now.getTime()) / 1000)));
  }

  /**
   * Admission: at most N admissions in any rolling window (Retry-After says when the oldest one
   * leaves it), then the day's allowance, consumed by a guarded update that only moves while
   * `used + charge <= cap`, so the cap holds under any concurrency. One round trip while both
   * pass (the allowance is consumed only when the velocity check passes); only a refusal reads
   * more. The count is exact without visiting every purchase in the window: whole seconds come
   * from the per-second counters a trigger keeps (migration 1763780400000), and the one second the
   * window starts inside of is counted from the purchases themselves.
   */
  async checkVelocityAndConsumeAllowance(manager: EntityManager, vendorId: string, controls: ConfiguredSpendControls, now: Date, day: string, chargeCents: Cents): Promise<void> {
    const windowStart = new Date(now.getTime() - controls.velocityWindowSeconds * 1000);
    const { admissions, consumed } = await this.controls.countAdmissionsAndConsume(manager, {
      vendorId,
      windowStart,
      velocityCount: controls.velocityCount,
      day,
      chargeCents,
      capCents: controls.dailyCapCents,
    });
    if (admissions >= controls.velocityCount) await this.refuseVelocity(manager, vendorId, controls, now, windowStart, admissions);
    if (!consumed) await this.refuseDailyCap(manager, vendorId, day, controls);
  }

  /** The vendor's admissions with `created_at > windowStart`, exactly (see checkVelocityAndConsumeAllowance). */
  async admissionsSince(manager: EntityManager, vendorId: string, windowStart: Date): Promise<number> {
    return this.transactions.admissionsSince(manager, vendorId, windowStart);
  }

  private async refuseDailyCap(manager: EntityManager, vendorId: string, day: string, controls: ConfiguredSpendControls): Promise<never> {
    const usedCents = await this.controls.usedCents(vendorId, day, manager);
    const used = usedCents !== undefined ? centsFromDbValue(usedCents) : 0n;
    const remaining = controls.dailyCapCents > used ? controls.dailyCapCents - used : 0n;
    throw new DailyCapExceededError(minorUnitsFromCents(remaining));
  }

  /** Only for a verified `failed`: the provider took no money, so the admission day gets the charge back. */
  async returnDailyAllowance(manager: EntityManager, vendorId: string, day: string, chargeCents: Cents): Promise<void> {
    await this.controls.returnAllowance(manager, vendorId, day, chargeCents);
  }

  private async setPaused(vendorId: string | null, paused: boolean, manager?: EntityManager): Promise<PauseState> {
    if (vendorId === null) {
      const pausedAt = await this.controls.setGlobalPaused(paused, manager);
      return { scope: 'global', vendor_id: null, paused, paused_at: pausedAt ? new Date(pausedAt).toISOString() : null };
    }
    await this.requireVendor(vendorId, manager);
    const pausedAt = await this.controls.setVendorPaused(vendorId, paused, manager);
    return { scope: 'vendor', vendor_id: vendorId, paused, paused_at: pausedAt ? new Date(pausedAt).toISOString() : null };
  }

  private async requireVendor(vendorId: string, manager?: EntityManager): Promise<void> {
    if (!isUuid(vendorId) || !(await this.vendors.exists(vendorId, manager))) {
      throw new NotFoundError('vendor');
    }
  }
}

function configuredControls(row: SpendControlsRow | undefined): ConfiguredSpendControls | null {
  if (!row || row.daily_cap_cents == null || row.transaction_max_cents == null || row.velocity_count == null || row.velocity_window_seconds == null) {
    return null;
  }
  return {
    dailyCapCents: centsFromDbValue(row.daily_cap_cents),
    transactionMaxCents: centsFromDbValue(row.transaction_max_cents),
    velocityCount: row.velocity_count,
    velocityWindowSeconds: row.velocity_window_seconds,
  };
}
