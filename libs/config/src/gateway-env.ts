import { IsIn, IsOptional, IsString, IsUrl, Matches } from 'class-validator';
import { APP_ENVS, IntSetting, IsPostgresUrl, type AppEnv } from './setting-decorators.js';

export { APP_ENVS, isPostgresUrl, type AppEnv } from './setting-decorators.js';

/** PAYOUT_HOLD_MAX_AGE_MS's default, also the invariant checker's when it is called without one (the reliability suites). */
export const DEFAULT_PAYOUT_HOLD_MAX_AGE_MS = 432_000_000;

/**
 * Every setting any deployable reads, validated once at start. Defaults work on a developer
 * machine; production-only secrets have no default so that their absence fails closed
 * (money movements answer PROVIDER_NOT_CONFIGURED) rather than silently using a dev value.
 */
export class GatewayEnv {
  @IsIn(APP_ENVS)
  APP_ENV: AppEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsOptional()
  @IntSetting(0, 65535)
  PORT?: number;

  /**
   * Where the vendor dashboard and the back-office answer /health/* and /metrics (their own port
   * answers 404 there): unset, the app's default (3201 and 3301). The gateways and the worker
   * keep them on PORT, behind an ingress that forwards only /api/v1.
   */
  @IsOptional()
  @IntSetting(0, 65535)
  OPERATIONAL_PORT?: number;

  @IsPostgresUrl()
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/gateway';

  @IntSetting(1, 200)
  DATABASE_POOL_SIZE = 10;

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Time the process gives in-flight requests and jobs after SIGTERM. */
  @IntSetting(0, 600_000)
  SHUTDOWN_GRACE_MS = 25_000;

  /**
   * How long the HTTP server keeps an idle keep-alive connection open. It must outlast the idle
   * timeout of whatever proxies to it (ingress-nginx keeps upstream connections 60 s, most cloud
   * load balancers 60-350 s), so the proxy always closes an idle connection first. Node's default
   * of 5 s lets a proxy reuse a connection just as Node closes it: the request is reset and the
   * client sees a 502.
   */
  @IntSetting(1_000, 3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** Time allowed to receive a request's headers; Node requires it to exceed the keep-alive timeout. */
  @IntSetting(1_000, 3_601_000)
  HTTP_HEADERS_TIMEOUT_MS = 66_000;

  /**
   * Proxies in front of the app whose X-Forwarded-For entry is believed: the client address is the
   * entry that many hops from the right (Kubernetes: 1, the ingress controller). 0, the default,
   * ignores the header: an app reached directly would otherwise take any client's word for its
   * address, and the sign-in limit per address and the audit trail with it.
   */
  @IntSetting(0, 10)
  TRUSTED_PROXY_HOPS = 0;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PURCHASE_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PURCHASE_PROVIDER_API_KEY?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PAYOUT_PROVIDER_BASE_URL?: string;

  @IsOptional()
  @IsString()
  PAYOUT_PROVIDER_API_KEY?: string;

  @IsString()
  VOUCHER_ACCOUNT_ALIAS = 'gateway-dev';

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

  /** Comma-separated `keyId:base64(32 bytes)` list; several ids allow rotation. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYS must be a comma-separated list of keyId:base64 of 32 bytes',
  })
  ENCRYPTION_KEYS?: string;

  @IsOptional()
  @IsString()
  ENCRYPTION_ACTIVE_KEY_ID?: string;

  @IntSetting(1)
  RATE_LIMIT_READ_PER_MINUTE = 600;

  @IntSetting(1)
  RATE_LIMIT_WRITE_PER_MINUTE = 300;

  @IsString()
  SANDBOX_API_KEY = 'sandbox-key';

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

  /**
   * Redis key prefix of every BullMQ queue. The braces are a Redis Cluster hash tag; separate
   * environments sharing one Redis (or test runs) use separate prefixes.
   */
  @Matches(/^\{[A-Za-z0-9_-]{1,40}\}$/, { message: 'QUEUE_PREFIX must look like {name}' })
  QUEUE_PREFIX = '{gw}';

  /** Jobs each worker process runs at once per queue. */
  @IntSetting(1, 200)
  WORKER_CONCURRENCY = 16;

  // ---- Purchase worker and gateway timing (owned by the purchase capability; see docs/PURCHASE.md) ----

  /** Per-attempt timeout of every purchase-provider HTTP call; an unanswered create is resolved by lookup. */
  @IntSetting(100, 120_000)
  PURCHASE_PROVIDER_TIMEOUT_MS = 10_000;

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

  @IntSetting(10)
  PURCHASE_REVERSAL_WATCH_INTERVAL_MS = 900_000;

  /** How often the worker re-enqueues overdue checks from PostgreSQL (covers lost Redis jobs). */
  @IntSetting(10)
  PURCHASE_SWEEP_INTERVAL_MS = 30_000;

  /** The most admitted purchases one round of the worker's submission claims takes (and sends at once). */
  @IntSetting(1)
  PURCHASE_CLAIM_BATCH = 32;

  /** The worker's pause between claim rounds when the last found less than a full batch: the longest wait before a new purchase is sent. */
  @IntSetting(10)
  PURCHASE_CLAIM_IDLE_MS = 100;

  // ---- Payout domain (issue 4) ----

  /** Per payout-provider call; an unanswered submission stays pending and is resolved by status polls. */
  @IntSetting(50)
  PAYOUT_PROVIDER_TIMEOUT_MS = 10_000;

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

  // ---- Worker crash recovery (issue 6, reliability) ----

  /**
   * How long a running job stays locked to its worker without a renewal (renewed every half of
   * it), and how often workers look for jobs whose worker died: a crashed worker's jobs run again
   * one to two of these after the crash (BullMQ lockDuration and stalledInterval).
   */
  @IntSetting(1_000, 600_000)
  WORKER_JOB_LOCK_MS = 30_000;

  // ---- Settlement reports and reconciliation (docs/RECONCILIATION.md) ----

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

  // ---- Signed webhooks (docs/INTEGRATION.md, Webhooks) ----

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

  get isProduction(): boolean {
    return this.APP_ENV === 'production';
  }
}
