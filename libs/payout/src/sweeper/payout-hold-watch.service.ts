import { Injectable, Logger, Optional } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { GatewayEnv } from '#config';
import { MetricsService } from '#observability';
import { ReconciliationExceptionsService } from '#reconciliation';
import { PayoutHoldRepository } from '../persistence/payout-hold.repository.js';

const RAISE_LIMIT = 500;

/**
 * needs_review is bounded (issue 26): a payout holds the vendor's amount + fee while pending or in
 * needs_review, and without a bound a hold nobody owns can sit for ever. On each payout sweep tick
 * a hold older than PAYOUT_HOLD_MAX_AGE_MS that no open reconciliation exception names gets one
 * `hold_overdue` exception for staff. "Once": the dedupe key carries the exception's number for
 * that payout (1, then one more than those resolved), computed from what is stored, so every tick
 * and every worker replica raise the same key and only the first insert counts; a new one comes
 * only after staff resolved the last while the hold stayed.
 *
 * Metrics, read from PostgreSQL at scrape time so every replica reports the same:
 * `payout_holds_overdue` (holds past the bound, owned or not) and `payout_hold_oldest_age_seconds`;
 * `payout_hold_overdue_exceptions_total` counts the exceptions this process raised. Without a
 * MetricsService (the ops CLI, tests' contexts) it records nothing.
 */
@Injectable()
export class PayoutHoldWatchService {
  private readonly logger = new Logger(PayoutHoldWatchService.name);
  private readonly raisedTotal?: Counter;

  constructor(
    private readonly holds: PayoutHoldRepository,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly config: GatewayEnv,
    @Optional() metrics?: MetricsService,
  ) {
    if (!metrics) return;
    const registers = [metrics.registry];
    this.raisedTotal = new Counter({ name: 'payout_hold_overdue_exceptions_total', help: 'hold_overdue reconciliation exceptions raised by this process', registers });
    // Both gauges from one query per scrape: whichever collects first starts it, the other waits for it.
    let pending: Promise<void> | undefined;
    const collect = () => (pending ??= refresh().finally(() => setImmediate(() => (pending = undefined))));
    const overdue = new Gauge({ name: 'payout_holds_overdue', help: 'Payouts holding funds (pending, needs_review) longer than PAYOUT_HOLD_MAX_AGE_MS', registers, collect });
    const oldest = new Gauge({ name: 'payout_hold_oldest_age_seconds', help: 'Age of the oldest payout hold (pending, needs_review), 0 when none', registers, collect });
    const refresh = async () => {
      try {
        const summary = await this.holds.summary(this.config.PAYOUT_HOLD_MAX_AGE_MS);
        overdue.set(summary.overdue);
        oldest.set(summary.oldestAgeSeconds);
      } catch (error) {
        // A scrape must not fail because PostgreSQL is briefly away; the last values stay.
        this.logger.warn({ err: (error as Error).message }, 'Could not read payout hold ages');
      }
    };
  }

  /** Raises `hold_overdue` for every overdue hold without an open exception; returns how many were new. */
  async raiseOverdue(): Promise<number> {
    const boundMs = this.config.PAYOUT_HOLD_MAX_AGE_MS;
    let raised = 0;
    for (const hold of await this.holds.overdueWithoutOpenException(boundMs, RAISE_LIMIT)) {
      const isNew = await this.exceptions.raise({
        domain: 'payout',
        kind: 'hold_overdue',
        dedupeKey: `payout:${hold.id}:hold_overdue:${hold.sequence}`,
        vendorId: hold.vendorId,
        payoutId: hold.id,
        details: {
          status: hold.status,
          method: hold.method,
          amount_cents: hold.amountCents.toString(),
          fee_cents: hold.feeCents.toString(),
          held_since: hold.createdAt,
          age_seconds: hold.ageSeconds,
          bound_ms: boundMs,
          what_to_do: 'Resolve the payout in the back-office review queue (check the provider now, or propose paid / failed), then resolve this exception.',
        },
      });
      if (isNew) raised++;
    }
    if (raised > 0) {
      this.raisedTotal?.inc(raised);
      this.logger.warn({ raised, boundMs }, 'Payout holds past PAYOUT_HOLD_MAX_AGE_MS without a staff item: hold_overdue exceptions raised');
    }
    return raised;
  }
}
