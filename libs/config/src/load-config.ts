import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ALL_CONFIG_GROUPS, restrictConfig, settingsOf, type ConfigGroup } from './config-groups.js';
import { GatewayEnv } from './gateway-env.js';

/** Development-only values; never used when APP_ENV=production (see applyDevelopmentDefaults). */
const DEVELOPMENT_DEFAULTS: Partial<Record<keyof GatewayEnv, string>> = {
  PURCHASE_PROVIDER_BASE_URL: 'http://127.0.0.1:3100/dvs/v1',
  PURCHASE_PROVIDER_API_KEY: 'sandbox-key',
  PAYOUT_PROVIDER_BASE_URL: 'http://127.0.0.1:3100',
  PAYOUT_PROVIDER_API_KEY: 'sandbox-key',
  CALLBACK_BASE_URL: 'http://127.0.0.1:3000/api/v1/provider/callback',
  CALLBACK_TOKEN: 'de7e10de7e10de7e10de7e10de7e10de7e10de7e10de7e10de7e10de7e10de7e',
  ENCRYPTION_KEYS: 'dev1:ZGV2LW9ubHkta2V5LW5ldmVyLWluLXByb2R1Y3Rpb24=',
  ENCRYPTION_ACTIVE_KEY_ID: 'dev1',
};

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((error) =>
    Object.values(error.constraints ?? {}).map((message) => `${error.property}: ${message}`),
  );
}

/**
 * Validates the environment once at start. Apps call this in main.ts with the config groups they
 * use (their root module's `*_CONFIG`); only those settings are read and validated, and the
 * result refuses reads of any other (restrictConfig). Libs receive the typed result through
 * injection and never read process.env themselves.
 */
export function loadConfig(
  source: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Record<string, string>> = {},
  groups: readonly ConfigGroup[] = ALL_CONFIG_GROUPS,
): GatewayEnv {
  const settings: ReadonlySet<string> = settingsOf(groups);
  const raw: Record<string, string | undefined> = { ...source, ...overrides };
  const appEnv = raw.APP_ENV ?? 'development';
  if (appEnv !== 'production') {
    for (const [key, value] of Object.entries(DEVELOPMENT_DEFAULTS)) raw[key] ??= value;
  }
  const picked = Object.fromEntries(Object.entries(raw).filter(([key, value]) => settings.has(key) && value !== undefined && value !== ''));
  const config = plainToInstance(GatewayEnv, picked, { exposeDefaultValues: true });
  // Settings of other groups keep their defaults, which are valid; only the declared ones can fail.
  const problems = flatten(validateSync(config, { forbidUnknownValues: false }).filter((error) => settings.has(error.property)));
  if (settings.has('ENCRYPTION_KEYS') && config.ENCRYPTION_KEYS && config.ENCRYPTION_ACTIVE_KEY_ID) {
    const ids = config.ENCRYPTION_KEYS.split(',').map((entry) => entry.split(':')[0]);
    if (!ids.includes(config.ENCRYPTION_ACTIVE_KEY_ID)) problems.push('ENCRYPTION_ACTIVE_KEY_ID: must name one of the ENCRYPTION_KEYS ids');
  }
  if (config.HTTP_HEADERS_TIMEOUT_MS <= config.HTTP_KEEP_ALIVE_TIMEOUT_MS) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS');
  }
  if (settings.has('PAYOUT_HOLD_MAX_AGE_MS') && config.PAYOUT_HOLD_MAX_AGE_MS <= config.PAYOUT_REVIEW_AFTER_MS) {
    problems.push('PAYOUT_HOLD_MAX_AGE_MS: must be greater than PAYOUT_REVIEW_AFTER_MS (a hold reaches review before it is overdue)');
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return restrictConfig(config, groups);
}
