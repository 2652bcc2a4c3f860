import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, updateReturning, type Queryable } from '#database';
import type { SpendLimits } from '../model/spend-limits.js';

/** A vendor's `purchase_spend_controls` row; the limits stay null until staff set them. */
export interface SpendControlsRecord {
  /** bigint text as stored; null until set. */
  dailyCapCents: string | null;
  transactionMaxCents: string | null;
  velocityCount: number | null;
  velocityWindowSeconds: number | null;
  pausedAt: Date | null;
}

const SPEND_CONTROLS = readShape<SpendControlsRecord>({
  dailyCapCents: 'daily_cap_cents', transactionMaxCents: 'transaction_max_cents', velocityCount: 'velocity_count',
  velocityWindowSeconds: 'velocity_window_seconds', pausedAt: 'paused_at',
});

/**
 * The spend-control aggregate: per-vendor limits and pause (`purchase_spend_controls`), the
 * platform-wide pause (`purchase_global_controls`), the daily allowances
 * (`purchase_daily_allowances`) and the per-second velocity counters a trigger keeps
 * (`purchase_velocity_buckets`, pruned by the sweeper).
 */
@Injectable()
export class SpendControlsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async saveLimits(vendorId: string, limits: SpendLimits, manager: Queryable = this.dataSource): Promise<void> {
    await manager.query(
      `INSERT INTO purchase_spend_controls (vendor_id, daily_cap_cents, transaction_max_cents, velocity_count, velocity_window_seconds)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (vendor_id) DO UPDATE SET daily_cap_cents = EXCLUDED.daily_cap_cents, transaction_max_cents = EXCLUDED.transaction_max_cents,
         velocity_count = EXCLUDED.velocity_count, velocity_window_seconds = EXCLUDED.velocity_window_seconds, updated_at = now()`,
      [vendorId, limits.dailyCapMinor, limits.transactionMaxMinor, limits.velocityCount, limits.velocityWindowSeconds],
    );
  }

  /** The database's clock, which decides the allowance day. */
  async now(manager: Queryable = this.dataSource): Promise<Date> {
    const [{ now }] = await manager.query<{ now: Date }[]>(`SELECT now() AS now`);
    return now;
  }

  async controls(vendorId: string, manager: Queryable = this.dataSource): Promise<SpendControlsRecord | undefined> {
    const rows = await manager.query<object[]>(`SELECT ${SPEND_CONTROLS.columns} FROM purchase_spend_controls WHERE vendor_id = $1`, [vendorId]);
    return SPEND_CONTROLS.first(rows) ?? undefined;
  }

  async globalPausedAt(manager: Queryable = this.dataSource): Promise<Date | null> {
    const [global] = await manager.query<{ paused_at: Date | null }[]>(`SELECT paused_at FROM purchase_global_controls`);
    return global?.paused_at ?? null;
  }

  /** ZAR cents of the day's allowance used so far, as stored (bigint text); undefined before the day's first admission. */
  async usedCents(vendorId: string, day: string, manager: Queryable = this.dataSource): Promise<string | undefined> {
    const [row] = await manager.query<{ used_cents: string }[]>(`SELECT used_cents FROM purchase_daily_allowances WHERE vendor_id = $1 AND day = $2`, [vendorId, day]);
    return row?.used_cents;
  }

  /** Only for a verified `failed`: the provider took no money, so the admission day gets the charge back. */
  async returnAllowance(manager: Queryable, vendorId: string, day: string, chargeCents: bigint): Promise<void> {
    await manager.query(`UPDATE purchase_daily_allowances SET used_cents = GREATEST(used_cents - $3, 0) WHERE vendor_id = $1 AND day = $2`, [
      vendorId,
      day,
      chargeCents.toString(),
    ]);
  }

  /** Sets or clears the platform-wide pause (an existing pause keeps its instant); returns the pause instant. */
  async setGlobalPaused(paused: boolean, manager: Queryable = this.dataSource): Promise<Date | null> {
    const [row] = await updateReturning<{ paused_at: Date | null }>(
      manager,
      `UPDATE purchase_global_controls SET paused_at = CASE WHEN $1 THEN COALESCE(paused_at, now()) END, updated_at = now() RETURNING paused_at`,
      [paused],
    );
    return row?.paused_at ?? null;
  }

  /** Sets or clears one vendor's pause (creating its controls row if need be); returns the pause instant. */
  async setVendorPaused(vendorId: string, paused: boolean, manager: Queryable = this.dataSource): Promise<Date | null> {
    const [row] = await manager.query<{ paused_at: Date | null }[]>(
      `INSERT INTO purchase_spend_controls (vendor_id, paused_at) VALUES ($1, CASE WHEN $2 THEN now() END)
       ON CONFLICT (vendor_id) DO UPDATE SET paused_at = CASE WHEN $2 THEN COALESCE(purchase_spend_controls.paused_at, now()) END, updated_at = now()
       RETURNING paused_at`,
      [vendorId, paused],
    );
    return row?.paused_at ?? null;
  }

  /** Drops counters older than `keepSeconds`; bounded per call, so a long-stopped worker catches up in steps instead of one long delete. */
  async pruneVelocityBuckets(keepSeconds: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM purchase_velocity_buckets WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM purchase_velocity_buckets WHERE second < floor(extract(epoch FROM now()))::bigint - $1::bigint LIMIT 10000))`,
      [keepSeconds],
    );
  }
}
