import { IsOptional, IsString, IsUrl, Matches } from 'class-validator';
import { IntSetting } from './setting-decorators.js';
import { PlatformSettings } from './platform-settings.js';

/** PAYOUT_HOLD_MAX_AGE_MS's default, also the invariant checker's when it is called without one (the reliability suites). */
export const DEFAULT_PAYOUT_HOLD_MAX_AGE_MS = 432_000_000;

/**
 * The settings of GatewayEnv (gateway-env.ts) for the two providers: where each is and its
 * credentials, and the pace of the work done at it (timeouts, verification, polls, reviews).
 */
export class ProviderSettings extends PlatformSettings {
  // ---- purchaseProvider ----

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PURCHASE_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PURCHASE_PROVIDER_API_KEY?: string;

  /** Per-attempt timeout of every purchase-provider HTTP call; an unanswered create is resolved by lookup. */
  @IntSetting(100, 120_000)
  PURCHASE_PROVIDER_TIMEOUT_MS = 10_000;

  /** Base URL the provider posts callbacks to; the secret token is appended as the last path segment. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  CALLBACK_BASE_URL?: string;

  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'CALLBACK_TOKEN must be 64 lowercase hexadecimal characters' })
  CALLBACK_TOKEN?: string;

  /** Accepted alongside CALLBACK_TOKEN while a rotation is in progress. */
  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'CALLBACK_TOKEN_PREVIOUS must be 64 lowercase hexadecimal characters' })
  CALLBACK_TOKEN_PREVIOUS?: string;

  // ---- purchaseTimings: the purchase worker and gateway (docs/PURCHASE.md) ----

  /** First verification lookup after submission; later ones back off (doubling) up to the maximum. */
  @IntSetting(10)
  PURCHASE_VERIFY_INITIAL_DELAY_MS = 2_000;

  @IntSetting(10)
  PURCHASE_VERIFY_MAX_DELAY_MS = 60_000;

  /** A transaction still unresolved this long after admission goes to `review` for staff. */
  @IntSetting(100)
  PURCHASE_VERIFICATION_WINDOW_MS = 900_000;

  /**
   * After a create attempt that may have reached the provider, a "not found" search counts only
   * when made at least this long after the attempt ended (and seen twice in a row). The attempt
   * ends at the provider's answer or, unanswered, at attempt start + PURCHASE_PROVIDER_TIMEOUT_MS,
   * so the settle period is only the provider's own delay between answering and being searchable
   * (why 10 s is enough: docs/PURCHASE.md, "Failure latency").
   */
  @IntSetting(0)
  PURCHASE_NOT_FOUND_SETTLE_MS = 10_000;

  /**
   * Once one "not found" has counted, the confirming search comes this soon instead of on the
   * backoff schedule: the proof needs a second look, not another minute of doubling delays.
   */
  @IntSetting(10)
  PURCHASE_NOT_FOUND_CONFIRM_DELAY_MS = 5_000;

  /** How long after completion the worker keeps re-verifying to catch reversals. */
  @IntSetting(0)
  PURCHASE_REVERSAL_WATCH_MS = 86_400_000;

  /**
   * The first reversal-watch check comes this long after completion. Each later one waits as long
   * as the purchase has been completed (15 min, 30 min, 1 h, 2 h, ...), up to
   * PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS: reversals come early if at all, the provider's
   * callback and its settlement report catch the rest, and a fixed 15-minute interval cost 96
   * lookups per completed purchase over the 24-hour watch.
   */
  @IntSetting(10)
  PURCHASE_REVERSAL_WATCH_INTERVAL_MS = 900_000;

  /** The longest wait between two reversal-watch checks (with the defaults: 9 checks in 24 h). */
  @IntSetting(10)
  PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS = 21_600_000;

  /** How often the worker re-enqueues overdue checks from PostgreSQL (covers lost Redis jobs). */
  @IntSetting(10)
  PURCHASE_SWEEP_INTERVAL_MS = 30_000;

  /** The most admitted purchases one round of the worker's submission claims takes (and sends at once). */
  @IntSetting(1)
  PURCHASE_CLAIM_BATCH = 32;

  /** The worker's pause between claim rounds when the last found less than a full batch: the longest wait before a new purchase is sent. */
  @IntSetting(10)
  PURCHASE_CLAIM_IDLE_MS = 100;

  // ---- payoutProvider ----

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PAYOUT_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PAYOUT_PROVIDER_API_KEY?: string;

  /** Per payout-provider call; an unanswered submission stays pending and is resolved by status polls. */
  @IntSetting(50)
  PAYOUT_PROVIDER_TIMEOUT_MS = 10_000;

  @IsString()
  VOUCHER_ACCOUNT_ALIAS = 'gateway-dev';

  // ---- payoutTimings: the payout worker and gateway (docs/PAYOUT.md) ----

  /** First status poll after a submission's provider call has surely ended; later polls double up to the max interval. */
  @IntSetting(10)
  PAYOUT_POLL_INITIAL_DELAY_MS = 5_000;

  @IntSetting(10)
  PAYOUT_POLL_MAX_INTERVAL_MS = 300_000;

  /** A payout whose outcome is still unknown this long after submission moves to needs_review (funds stay reserved). */
  @IntSetting(100)
  PAYOUT_REVIEW_AFTER_MS = 259_200_000;

  /**
   * A lookup that finds no payment proves the provider never received the submission only when
   * made at least this long after the submission attempt ended (and seen twice in a row): a
   * provider may record a payment some time after a call that timed out. Same rule as
   * PURCHASE_NOT_FOUND_SETTLE_MS.
   */
  @IntSetting(0)
  PAYOUT_NOT_FOUND_SETTLE_MS = 60_000;

  /** How often a needs_review payout is still looked up at its provider, until it gets an answer or staff act. */
  @IntSetting(10)
  PAYOUT_REVIEW_POLL_INTERVAL_MS = 3_600_000;

  /** How long a paid payout is watched for a provider reversal. */
  @IntSetting(0)
  PAYOUT_REVERSAL_WATCH_MS = 7_200_000;

  /** How often the worker re-enqueues overdue payout work from PostgreSQL (covers lost Redis jobs). */
  @IntSetting(10)
  PAYOUT_SWEEP_INTERVAL_MS = 30_000;

  /**
   * The longest a payout may hold the vendor's funds (amount + fee reserved, status pending or
   * needs_review, counted from its creation) before staff must own it: past it the worker raises
   * one `hold_overdue` reconciliation exception and the metrics report it, and the invariant
   * checker reports any such hold without an open staff item. Must exceed PAYOUT_REVIEW_AFTER_MS
   * (a hold reaches review first). Default 5 days: 3 to needs_review, 2 for staff.
   */
  @IntSetting(1_000)
  PAYOUT_HOLD_MAX_AGE_MS = DEFAULT_PAYOUT_HOLD_MAX_AGE_MS;
}
