import { IsOptional, IsString, IsUrl } from 'class-validator';
import { IntSetting } from './setting-decorators.js';
import { ProviderSettings } from './provider-settings.js';

export { APP_ENVS, isPostgresUrl, type AppEnv } from './setting-decorators.js';
export { DEFAULT_PAYOUT_HOLD_MAX_AGE_MS } from './provider-settings.js';

/**
 * Every setting any deployable reads, validated once at start. Defaults work on a developer
 * machine; production-only secrets have no default so that their absence fails closed
 * (money movements answer PROVIDER_NOT_CONFIGURED) rather than silently using a dev value.
 *
 * One class, since it is the injection token and what the environment is validated into, declared
 * in layers by config group (config-groups.ts) so that no file holds them all: PlatformSettings
 * (platform-settings.ts), ProviderSettings (provider-settings.ts), then the worker's settlement and
 * webhook jobs, the web apps and the sandbox here. The validators and transforms of class-validator
 * and class-transformer apply along the prototype chain.
 */
export class GatewayEnv extends ProviderSettings {
  // ---- settlement: settlement reports and reconciliation (docs/RECONCILIATION.md) ----

  /**
   * How often the worker ingests the providers' settlement reports of the last
   * SETTLEMENT_LOOKBACK_DAYS finished days; ticks fall on multiples of the interval (on the hour
   * by default), so restarts do not postpone them. 0 turns the schedule off (ops reconcile:run still works).
   */
  @IntSetting(0)
  SETTLEMENT_INGEST_INTERVAL_MS = 3_600_000;

  /** Finished Johannesburg days ingested on each tick: 1 is yesterday; 2 also catches a report re-issued a day late. */
  @IntSetting(1, 31)
  SETTLEMENT_LOOKBACK_DAYS = 2;

  /**
   * How long after a Johannesburg day ends its settlement report must be in: a report not fetched
   * by then raises a `missing_report` exception (once) and is still asked for on every tick, however
   * far behind the look-back it falls, until it arrives.
   */
  @IntSetting(60_000)
  SETTLEMENT_REPORT_DEADLINE_MS = 43_200_000;

  // ---- webhooks: signed webhooks (docs/INTEGRATION.md, Webhooks) ----

  /** Delay before a failed delivery's first retry; each later retry waits twice the one before, up to WEBHOOK_RETRY_MAX_DELAY_MS. */
  @IntSetting(10)
  WEBHOOK_RETRY_BASE_MS = 60_000;

  /** Longest wait between two attempts of one delivery. */
  @IntSetting(10)
  WEBHOOK_RETRY_MAX_DELAY_MS = 43_200_000;

  /** Attempts of one delivery before it is marked failed; with the defaults the retries span about 77 hours (at least 72 h is promised). */
  @IntSetting(1, 100)
  WEBHOOK_MAX_ATTEMPTS = 16;

  /** TCP+TLS connect timeout of a delivery: a receiver that does not accept in this time counts as a failed attempt. */
  @IntSetting(100, 60_000)
  WEBHOOK_CONNECT_TIMEOUT_MS = 3_000;

  /** Time the receiver has to answer once connected (the whole response). */
  @IntSetting(100, 120_000)
  WEBHOOK_RESPONSE_TIMEOUT_MS = 10_000;

  /** How often the worker rebuilds overdue delivery jobs from PostgreSQL (covers lost Redis jobs). */
  @IntSetting(10)
  WEBHOOK_SWEEP_INTERVAL_MS = 30_000;

  /** Default overlap after a secret rotation during which the old secret also signs. */
  @IntSetting(0, 604_800)
  WEBHOOK_ROTATION_OVERLAP_SECONDS = 86_400;

  // ---- dashboard, mail, staffFourEyes: the web apps ----

  /** Where vendors reach the dashboard; invite links printed by `ops dashboard:invite` start with it. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  DASHBOARD_PUBLIC_URL = 'http://127.0.0.1:3200';

  /**
   * Outgoing mail of the web apps (invites, password resets, two-step sign-in notices), sent by
   * nodemailer: `smtp://user:password@host:587` (STARTTLS when the server offers it) or
   * `smtps://...:465`. Unset: nothing is sent and each mail not sent is logged (without its link);
   * `npm run stack` points it at the local mail catcher.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['smtp', 'smtps'] })
  MAIL_SMTP_URL?: string;

  /** The From of that mail, an address or `Name <address>`. */
  @IsString()
  MAIL_FROM = 'Payments gateway <no-reply@localhost>';

  /**
   * Back-office vendor operations: a payout-account funding of at most this many cents is
   * applied by one operator (with its audit record); a larger one is a four-eyes proposal.
   * 0, the default, keeps every funding under four eyes until the platform team sets an amount.
   */
  @IntSetting(0, Number.MAX_SAFE_INTEGER)
  STAFF_FOUR_EYES_ABOVE_CENTS = 0;

  // ---- sandbox: the provider sandbox's key, read only by the invariant checker's witness ----

  @IsString()
  SANDBOX_API_KEY = 'sandbox-key';

  get isProduction(): boolean {
    return this.APP_ENV === 'production';
  }
}
