import { GatewayEnv } from './gateway-env.js';

/** A setting of GatewayEnv (the `isProduction` getter is derived, not a setting). */
export type Setting = Exclude<keyof GatewayEnv, 'isProduction'>;

/**
 * GatewayEnv's settings by the part of the system that reads them. Each deployable declares the
 * groups it uses (its root module's `*_CONFIG`) and validates only those at start, so a setting
 * of another deployable (the sandbox's key, the purchase provider's callback token on the
 * payout gateway) can neither stop it starting nor be read by it by mistake.
 */
export const CONFIG_GROUPS = {
  /** Every process: environment, logging, the HTTP server and its drain. */
  runtime: ['APP_ENV', 'LOG_LEVEL', 'PORT', 'OPERATIONAL_PORT', 'SHUTDOWN_GRACE_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'TRUSTED_PROXY_HOPS'],
  database: ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_PREPARED_STATEMENTS'],
  /** The shared Redis client and the queue producer. */
  redis: ['REDIS_URL', 'QUEUE_PREFIX'],
  /** BullMQ consumers: the worker only. */
  workerQueues: ['WORKER_CONCURRENCY', 'WORKER_JOB_LOCK_MS'],
  rateLimits: ['RATE_LIMIT_READ_PER_MINUTE', 'RATE_LIMIT_WRITE_PER_MINUTE'],
  /** Field encryption of stored secrets (PINs, webhook secrets). */
  encryption: ['ENCRYPTION_KEYS', 'ENCRYPTION_ACTIVE_KEY_ID'],
  purchaseProvider: ['PURCHASE_PROVIDER_BASE_URL', 'PURCHASE_PROVIDER_API_KEY', 'PURCHASE_PROVIDER_TIMEOUT_MS', 'CALLBACK_BASE_URL', 'CALLBACK_TOKEN', 'CALLBACK_TOKEN_PREVIOUS'],
  purchaseTimings: [
    'PURCHASE_VERIFY_INITIAL_DELAY_MS',
    'PURCHASE_VERIFY_MAX_DELAY_MS',
    'PURCHASE_VERIFICATION_WINDOW_MS',
    'PURCHASE_NOT_FOUND_SETTLE_MS',
    'PURCHASE_NOT_FOUND_CONFIRM_DELAY_MS',
    'PURCHASE_REVERSAL_WATCH_MS',
    'PURCHASE_REVERSAL_WATCH_INTERVAL_MS',
    'PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS',
    'PURCHASE_SWEEP_INTERVAL_MS',
    'PURCHASE_CLAIM_BATCH',
    'PURCHASE_CLAIM_IDLE_MS',
  ],
  payoutProvider: ['PAYOUT_PROVIDER_BASE_URL', 'PAYOUT_PROVIDER_API_KEY', 'PAYOUT_PROVIDER_TIMEOUT_MS', 'VOUCHER_ACCOUNT_ALIAS'],
  payoutTimings: [
    'PAYOUT_POLL_INITIAL_DELAY_MS',
    'PAYOUT_POLL_MAX_INTERVAL_MS',
    'PAYOUT_REVIEW_AFTER_MS',
    'PAYOUT_NOT_FOUND_SETTLE_MS',
    'PAYOUT_REVIEW_POLL_INTERVAL_MS',
    'PAYOUT_REVERSAL_WATCH_MS',
    'PAYOUT_SWEEP_INTERVAL_MS',
    'PAYOUT_HOLD_MAX_AGE_MS',
  ],
  settlement: ['SETTLEMENT_INGEST_INTERVAL_MS', 'SETTLEMENT_LOOKBACK_DAYS', 'SETTLEMENT_REPORT_DEADLINE_MS'],
  webhooks: [
    'WEBHOOK_RETRY_BASE_MS',
    'WEBHOOK_RETRY_MAX_DELAY_MS',
    'WEBHOOK_MAX_ATTEMPTS',
    'WEBHOOK_CONNECT_TIMEOUT_MS',
    'WEBHOOK_RESPONSE_TIMEOUT_MS',
    'WEBHOOK_SWEEP_INTERVAL_MS',
    'WEBHOOK_ROTATION_OVERLAP_SECONDS',
  ],
  dashboard: ['DASHBOARD_PUBLIC_URL'],
  /** Outgoing mail of the web apps. */
  mail: ['MAIL_SMTP_URL', 'MAIL_FROM'],
  /** The back-office: the amount above which a staff money action needs a second person. */
  staffFourEyes: ['STAFF_FOUR_EYES_ABOVE_CENTS'],
  /** The provider sandbox's key: only the invariant checker's witness reads it. */
  sandbox: ['SANDBOX_API_KEY'],
} as const satisfies Record<string, readonly Setting[]>;

export type ConfigGroup = keyof typeof CONFIG_GROUPS;

export const ALL_CONFIG_GROUPS = Object.keys(CONFIG_GROUPS) as ConfigGroup[];

// Every setting belongs to a group: a setting added to GatewayEnv and to no group fails to compile here.
type Grouped = (typeof CONFIG_GROUPS)[ConfigGroup][number];
const everySettingGrouped: [Exclude<Setting, Grouped>] extends [never] ? true : Exclude<Setting, Grouped> = true;
void everySettingGrouped;

/** The settings of the given groups; `runtime` always (APP_ENV decides which defaults apply). */
export function settingsOf(groups: readonly ConfigGroup[]): Set<Setting> {
  return new Set<Setting>(['runtime' as const, ...groups].flatMap((group) => CONFIG_GROUPS[group]));
}

/**
 * The configuration as one deployable may see it: the settings of its groups, and for every
 * other setting a getter that throws, so reading a setting the deployable did not declare (and
 * therefore did not validate) fails loudly instead of yielding an unchecked default.
 */
export function restrictConfig(config: GatewayEnv, groups: readonly ConfigGroup[]): GatewayEnv {
  const settings = settingsOf(groups);
  const view = Object.create(GatewayEnv.prototype) as GatewayEnv;
  for (const [group, keys] of Object.entries(CONFIG_GROUPS) as [ConfigGroup, readonly Setting[]][]) {
    for (const key of keys) {
      if (settings.has(key)) {
        Object.defineProperty(view, key, { value: config[key], enumerable: true, writable: true });
      } else {
        Object.defineProperty(view, key, {
          enumerable: false,
          get: () => {
            throw new Error(`${key} is in the config group '${group}', which this deployable does not declare (libs/config/src/config-groups.ts)`);
          },
        });
      }
    }
  }
  return view;
}
