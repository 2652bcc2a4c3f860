/**
 * The vendor's admissions with `created_at > windowStart`, exactly, without visiting every
 * purchase in the window: whole seconds come from the per-second counters a trigger keeps
 * (migration 1763780400000), and the one second the window starts inside of is counted from the
 * purchases themselves. Parameters: the vendor id, windowStart and its whole second (epoch) as
 * `$vendor`, `$start`, `$second`, substituted by admissionsSinceSql.
 */
export function admissionsSinceSql(vendor: string, start: string, second: string): string {
  return `(SELECT COALESCE(sum(admissions), 0) FROM purchase_velocity_buckets WHERE vendor_id = ${vendor} AND second > ${second}::bigint)
            + (SELECT count(*) FROM purchase_transactions WHERE vendor_id = ${vendor} AND created_at > ${start} AND created_at < to_timestamp(${second}::bigint + 1))`;
}

/** The whole second (epoch) windowStart falls in: the one counted from the purchases. */
export const partialSecondOf = (windowStart: Date): number => Math.floor(windowStart.getTime() / 1000);
