import { systemSandboxClock, type SandboxClock } from './sandbox-clock.js';

export interface SandboxOptions {
  /** Value every provider route expects in `X-Api-Key`. */
  apiKey: string;
  /** Submission to final status (completed, declined, paid cash-send) for delayed outcomes. */
  completeDelayMs: number;
  /** Completion (or payment) to reversal for the "reversed later" test values. */
  reversalDelayMs: number;
  /** RTC EFT submission to paid. */
  rtcSettleDelayMs: number;
  /** How long a "submission times out" test value holds the response open. */
  timeoutHangMs: number;
  /** Purchase `06`: completion callback to the moment the provider's own GET says COMPLETED. */
  lateStatusDelayMs: number;
  /** Callback POSTs are fire-and-forget; this bounds each one. */
  callbackTimeoutMs: number;
  clock: SandboxClock;
}

export const SANDBOX_OPTIONS = Symbol('SANDBOX_OPTIONS');

export const DEFAULT_SANDBOX_OPTIONS: Readonly<Omit<SandboxOptions, 'clock'>> = {
  apiKey: 'sandbox-key',
  completeDelayMs: 1_000,
  reversalDelayMs: 3_000,
  rtcSettleDelayMs: 3_000,
  timeoutHangMs: 15_000,
  lateStatusDelayMs: 3_000,
  callbackTimeoutMs: 2_000,
};

export function resolveSandboxOptions(overrides: Partial<SandboxOptions> = {}): SandboxOptions {
  const options: SandboxOptions = { ...DEFAULT_SANDBOX_OPTIONS, clock: systemSandboxClock, ...dropUndefined(overrides) };
  if (options.apiKey.length === 0) throw new Error('sandbox apiKey must not be empty');
  for (const key of DELAY_KEYS) {
    const value = options[key];
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`sandbox ${key} must be a non-negative integer`);
  }
  return options;
}

/** Every delay setting with the environment variable main.ts reads it from. */
const ENVIRONMENT_NAMES = {
  completeDelayMs: 'SANDBOX_COMPLETE_DELAY_MS',
  reversalDelayMs: 'SANDBOX_REVERSAL_DELAY_MS',
  rtcSettleDelayMs: 'SANDBOX_RTC_SETTLE_DELAY_MS',
  timeoutHangMs: 'SANDBOX_TIMEOUT_HANG_MS',
  lateStatusDelayMs: 'SANDBOX_LATE_STATUS_DELAY_MS',
  callbackTimeoutMs: 'SANDBOX_CALLBACK_TIMEOUT_MS',
} as const satisfies Partial<Record<keyof SandboxOptions, string>>;

const DELAY_KEYS = Object.keys(ENVIRONMENT_NAMES) as (keyof typeof ENVIRONMENT_NAMES)[];

/** Reads the sandbox settings from environment variables; only main.ts calls this. */
export function sandboxOptionsFromEnvironment(environment: Record<string, string | undefined>): Partial<SandboxOptions> {
  const options: Partial<SandboxOptions> = {};
  if (environment.SANDBOX_API_KEY !== undefined) options.apiKey = environment.SANDBOX_API_KEY;
  for (const key of DELAY_KEYS) {
    const name = ENVIRONMENT_NAMES[key];
    const raw = environment[name];
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number of milliseconds`);
    options[key] = Number(raw);
  }
  return options;
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
