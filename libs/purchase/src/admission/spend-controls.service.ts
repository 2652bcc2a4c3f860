import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { johannesburgDayOf, NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue, minorUnitsFromCents, type Cents } from '#money';
import { isUuid } from '../model/uuid-pattern.js';
import {
  DailyCapExceededError,
  PurchasesPausedError,
  SpendControlsNotConfiguredError,
  TransactionMaximumExceededError,
  VelocityLimitExceededError,
} from '../model/spend-control.errors.js';

export interface SpendLimits {
  dailyCapMinor: number;
  transactionMaxMinor: number;
  velocityCount: number;
  velocityWindowSeconds: number;
}

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

interface ControlsRow {
  daily_cap_cents: string | null;
  transaction_max_cents: string | null;
  velocity_count: number | null;
  velocity_window_seconds: number | null;
  paused_at: Date | null;
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
  constructor(private readonly dataSource: DataSource) {}

  async setLimits(vendorId: string, limits: SpendLimits): Promise<LimitsView> {
    const problems: Record<string, string[]> = {};
    const check = (name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
      if (!Number.isSafeInteger(value) || value < min || value > max) problems[name] = [`must be an integer from ${min} to ${max}`];
    };
    check('daily_cap_minor', limits.dailyCapMinor, 0);
    check('transaction_max_minor', limits.transactionMaxMinor, 1);
    check('velocity_count', limits.velocityCount, 1, 1_000_000);
    check('velocity_window_seconds', limits.velocityWindowSeconds, 1, MAX_VELOCITY_WINDOW_SECONDS);
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    await this.requireVendor(vendorId);
    await this.dataSource.query(
      `INSERT INTO purchase_spend_controls (vendor_id, daily_cap_cents, transaction_max_cents, velocity_count, velocity_window_seconds)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (vendor_id) DO UPDATE SET daily_cap_cents = EXCLUDED.daily_cap_cents, transaction_max_cents = EXCLUDED.transaction_max_cents,
         velocity_count = EXCLUDED.velocity_count, velocity_window_seconds = EXCLUDED.velocity_window_seconds, updated_at = now()`,
      [vendorId, limits.dailyCapMinor, limits.transactionMaxMinor, limits.velocityCount, limits.velocityWindowSeconds],
    );
    return this.limitsFor(vendorId);
  }

  /** Pauses new purchases for one vendor, or for everyone when vendorId is null. Existing purchases carry on. */
  async pause(vendorId: string | null): Promise<PauseState> {
    return this.setPaused(vendorId, true);
  }

  async resume(vendorId: string | null): Promise<PauseState> {
    return this.setPaused(vendorId, false);
  }

  async limitsFor(vendorId: string): Promise<LimitsView> {
    const manager = this.dataSource.manager;
    const [{ now }] = await manager.query(`SELECT now() AS now`);
    const day = johannesburgDayOf(now);
    const [controls] = (await manager.query(
      `SELECT daily_cap_cents, transaction_max_cents, velocity_count, velocity_window_seconds, paused_at
         FROM purchase_spend_controls WHERE vendor_id = $1`,
      [vendorId],
    )) as ControlsRow[];
    const [global] = await manager.query(`SELECT paused_at FROM purchase_global_controls`);
    const [allowance] = await manager.query(`SELECT used_cents FROM purchase_daily_allowances WHERE vendor_id = $1 AND day = $2`, [vendorId, day]);
    const used = allowance ? centsFromDbValue(allowance.used_cents) : 0n;
    const cap = controls?.daily_cap_cents != null ? centsFromDbValue(controls.daily_cap_cents) : null;
    const pausedScope = global?.paused_at ? 'global' : controls?.paused_at ? 'vendor' : null;
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
    const [controls] = (await manager.query(
      `SELECT c.daily_cap_cents, c.transaction_max_cents, c.velocity_count, c.velocity_window_seconds, c.paused_at, g.paused_at AS global_paused_at
         FROM purchase_spend_controls c CROSS JOIN purchase_global_controls g WHERE c.vendor_id = $1 FOR UPDATE OF c`,
      [vendorId],
    )) as (ControlsRow & { global_paused_at: Date | null })[];
    const globalPausedAt = controls ? controls.global_paused_at : ((await manager.query(`SELECT paused_at FROM purchase_global_controls`))[0]?.paused_at ?? null);
    if (globalPausedAt) throw new PurchasesPausedError('global');
    if (controls?.paused_at) throw new PurchasesPausedError('vendor');
    const configured = configuredControls(controls);
    if (!configured) throw new SpendControlsNotConfiguredError();
    return configured;
  }

  checkTransactionMaximum(controls: ConfiguredSpendControls, chargeCents: Cents): void {
    if (chargeCents > controls.transactionMaxCents) throw new TransactionMaximumExceededError(minorUnitsFromCents(controls.transactionMaxCents));
  }

  /**
   * At most N admissions in any rolling window; Retry-After says when the oldest one leaves it.
   * The count is exact without visiting every purchase in the window: whole seconds come from
   * the per-second counters a trigger keeps (migration 1763780400000), and the one second the
   * window starts inside of is counted from the purchases themselves.
   */
  async checkVelocity(manager: EntityManager, vendorId: string, controls: ConfiguredSpendControls, now: Date): Promise<void> {
    const windowStart = new Date(now.getTime() - controls.velocityWindowSeconds * 1000);
    const count = await this.admissionsSince(manager, vendorId, windowStart);
    if (count < controls.velocityCount) return;
    // The admission that must leave the window before one more fits.
    const [blocking] = await manager.query(
      `SELECT created_at FROM purchase_transactions WHERE vendor_id = $1 AND created_at > $2 ORDER BY created_at ASC OFFSET $3 LIMIT 1`,
      [vendorId, windowStart, count - controls.velocityCount],
    );
    const leavesAt = new Date(blocking.created_at).getTime() + controls.velocityWindowSeconds * 1000;
    throw new VelocityLimitExceededError(Math.max(1, Math.ceil((leavesAt - now.getTime()) / 1000)));
  }

  /** The vendor's admissions with `created_at > windowStart`, exactly (see checkVelocity). */
  async admissionsSince(manager: EntityManager, vendorId: string, windowStart: Date): Promise<number> {
    const partialSecond = Math.floor(windowStart.getTime() / 1000);
    const [{ count }] = await manager.query(
      `SELECT (SELECT COALESCE(sum(admissions), 0) FROM purchase_velocity_buckets WHERE vendor_id = $1 AND second > $3::bigint)
            + (SELECT count(*) FROM purchase_transactions WHERE vendor_id = $1 AND created_at > $2 AND created_at < to_timestamp($3::bigint + 1)) AS count`,
      [vendorId, windowStart, partialSecond],
    );
    return Number(count);
  }

  /** Guarded update: the row only moves while `used + charge <= cap`, so the cap holds under any concurrency. */
  async consumeDailyAllowance(manager: EntityManager, vendorId: string, day: string, controls: ConfiguredSpendControls, chargeCents: Cents): Promise<void> {
    // One statement: the day's row is created with this charge, or grows by it, only while it fits.
    const consumed = await manager.query(
      `INSERT INTO purchase_daily_allowances AS a (vendor_id, day, used_cents) SELECT $1, $2, $3 WHERE $3::bigint <= $4::bigint
       ON CONFLICT (vendor_id, day) DO UPDATE SET used_cents = a.used_cents + EXCLUDED.used_cents WHERE a.used_cents + EXCLUDED.used_cents <= $4::bigint
       RETURNING used_cents`,
      [vendorId, day, chargeCents.toString(), controls.dailyCapCents.toString()],
    );
    if (consumed.length > 0) return;
    const [row] = await manager.query(`SELECT used_cents FROM purchase_daily_allowances WHERE vendor_id = $1 AND day = $2`, [vendorId, day]);
    const used = row ? centsFromDbValue(row.used_cents) : 0n;
    const remaining = controls.dailyCapCents > used ? controls.dailyCapCents - used : 0n;
    throw new DailyCapExceededError(minorUnitsFromCents(remaining));
  }

  /** Only for a verified `failed`: the provider took no money, so the admission day gets the charge back. */
  async returnDailyAllowance(manager: EntityManager, vendorId: string, day: string, chargeCents: Cents): Promise<void> {
    await manager.query(
      `UPDATE purchase_daily_allowances SET used_cents = GREATEST(used_cents - $3, 0) WHERE vendor_id = $1 AND day = $2`,
      [vendorId, day, chargeCents.toString()],
    );
  }

  private async setPaused(vendorId: string | null, paused: boolean): Promise<PauseState> {
    if (vendorId === null) {
      const [row] = await this.dataSource.query(
        `UPDATE purchase_global_controls SET paused_at = CASE WHEN $1 THEN COALESCE(paused_at, now()) END, updated_at = now() RETURNING paused_at`,
        [paused],
      );
      const pausedAt = row[0]?.paused_at ?? null;
      return { scope: 'global', vendor_id: null, paused, paused_at: pausedAt ? new Date(pausedAt).toISOString() : null };
    }
    await this.requireVendor(vendorId);
    const [row] = await this.dataSource.query(
      `INSERT INTO purchase_spend_controls (vendor_id, paused_at) VALUES ($1, CASE WHEN $2 THEN now() END)
       ON CONFLICT (vendor_id) DO UPDATE SET paused_at = CASE WHEN $2 THEN COALESCE(purchase_spend_controls.paused_at, now()) END, updated_at = now()
       RETURNING paused_at`,
      [vendorId, paused],
    );
    const pausedAt = row?.paused_at ?? null;
    return { scope: 'vendor', vendor_id: vendorId, paused, paused_at: pausedAt ? new Date(pausedAt).toISOString() : null };
  }

  private async requireVendor(vendorId: string): Promise<void> {
    if (!isUuid(vendorId) || (await this.dataSource.query(`SELECT 1 FROM vendors WHERE id = $1`, [vendorId])).length === 0) {
      throw new NotFoundError('vendor');
    }
  }
}

function configuredControls(row: ControlsRow | undefined): ConfiguredSpendControls | null {
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
