import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { VendorDirectory } from '#auth';
import { johannesburgDayOf, ValidationFailedError } from '#common';
import { centsFromDbValue, minorUnitsFromCents } from '#money';
import type { SpendLimits } from '../model/spend-limits.js';
import { SpendControlsRepository, type SpendControlsRecord } from '../persistence/spend-controls.repository.js';
import { TransactionListRepository } from '../persistence/transaction-list.repository.js';

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

/** The longest velocity window; the per-second counters are kept this long (PurchaseSweeperService). */
export const MAX_VELOCITY_WINDOW_SECONDS = 7 * 86_400;

/**
 * Spend controls: staff set them (setLimits, pause, resume), vendors read them (limitsFor). The
 * admission of every purchase checks and consumes them in its one statement (purchase_admit,
 * TransactionRepository.admit).
 */
@Injectable()
export class PurchaseSpendControlsService {
  constructor(
    private readonly controls: SpendControlsRepository,
    private readonly transactions: TransactionListRepository,
    private readonly vendors: VendorDirectory,
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
    await this.vendors.requireExists(vendorId, manager);
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
    const cap = controls?.dailyCapCents != null ? centsFromDbValue(controls.dailyCapCents) : null;
    const pausedScope = globalPausedAt ? 'global' : controls?.pausedAt ? 'vendor' : null;
    return {
      configured: isConfigured(controls),
      currency: 'ZAR',
      day,
      daily_cap_minor: cap === null ? null : minorUnitsFromCents(cap),
      used_today_minor: minorUnitsFromCents(used),
      remaining_today_minor: cap === null ? null : minorUnitsFromCents(cap > used ? cap - used : 0n),
      transaction_max_minor: controls?.transactionMaxCents != null ? minorUnitsFromCents(centsFromDbValue(controls.transactionMaxCents)) : null,
      velocity_count: controls?.velocityCount ?? null,
      velocity_window_seconds: controls?.velocityWindowSeconds ?? null,
      purchases_paused: pausedScope !== null,
      paused_scope: pausedScope,
    };
  }

  /** The vendor's admissions with `created_at > windowStart`, exactly, counted as the admission's velocity check counts them. */
  async admissionsSince(manager: EntityManager, vendorId: string, windowStart: Date): Promise<number> {
    return this.transactions.admissionsSince(manager, vendorId, windowStart);
  }

  private async setPaused(vendorId: string | null, paused: boolean, manager?: EntityManager): Promise<PauseState> {
    if (vendorId !== null) await this.vendors.requireExists(vendorId, manager);
    const pausedAt =
      vendorId === null ? await this.controls.setGlobalPaused(paused, manager) : await this.controls.setVendorPaused(vendorId, paused, manager);
    const scope = vendorId === null ? 'global' : 'vendor';
    return { scope, vendor_id: vendorId, paused, paused_at: pausedAt ? new Date(pausedAt).toISOString() : null };
  }
}

/** Every limit set: until then the admission refuses with SPEND_CONTROLS_NOT_CONFIGURED (purchase_admit). */
function isConfigured(row: SpendControlsRecord | undefined): boolean {
  return row != null && row.dailyCapCents != null && row.transactionMaxCents != null && row.velocityCount != null && row.velocityWindowSeconds != null;
}
