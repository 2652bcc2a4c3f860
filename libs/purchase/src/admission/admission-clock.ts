import { Injectable } from '@nestjs/common';

/**
 * Where an admission reads "now": the instant it is admitted at, which decides its
 * Africa/Johannesburg allowance day, the quote's expiry and the velocity window.
 *
 * In production this is always the database's `now()`, read in the admission's statement
 * (`instant()` answers null), so every admission of every gateway instance uses one clock, the
 * same one that stamps `created_at`. The class exists so a test can replace it in the DI
 * container with a fixed instant and prove the midnight rollover (23:59:59.9 vs 00:00:00 SAST)
 * without waiting for midnight or faking PostgreSQL: a single bind parameter
 * (`COALESCE($n, now())`) is the whole difference, and no production code path can set it.
 */
@Injectable()
export class AdmissionClock {
  instant(): Date | null {
    return null;
  }
}
