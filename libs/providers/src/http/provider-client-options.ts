import { ProviderNotConfiguredError } from '../provider-errors.js';

export interface ProviderClientOptions {
  baseUrl?: string;
  apiKey?: string;
  /** Per attempt, covering the whole response body. Default 10 000 ms. */
  timeoutMs?: number;
  /** Production fails closed when baseUrl or apiKey is missing; elsewhere the local sandbox is the default. */
  production: boolean;
  /** Extra attempts for a safe read (GET) after a timeout, network failure or 5xx. Default 2. */
  readRetries?: number;
  /** Wait before the first read retry, doubled for each further one. Default 200 ms. */
  readRetryBackoffMs?: number;
}

/** What a developer machine runs (apps/provider-sandbox defaults). */
export const LOCAL_SANDBOX_BASE_URL = 'http://127.0.0.1:3100';
export const LOCAL_SANDBOX_API_KEY = 'sandbox-key';

/** The settings a transport uses: every option resolved. */
export type ProviderConnection = Required<Omit<ProviderClientOptions, 'production'>>;

/** The settings to use, or the error every call must throw when production is missing them. */
export function providerConnectionOf(
  provider: string,
  options: ProviderClientOptions,
): ProviderConnection | ProviderNotConfiguredError {
  const baseUrl = nonEmpty(options.baseUrl);
  const apiKey = nonEmpty(options.apiKey);
  if (options.production && (baseUrl === undefined || apiKey === undefined)) {
    const missing = [...(baseUrl === undefined ? ['baseUrl'] : []), ...(apiKey === undefined ? ['apiKey'] : [])];
    return new ProviderNotConfiguredError(provider, missing);
  }
  return {
    baseUrl: (baseUrl ?? LOCAL_SANDBOX_BASE_URL).replace(/\/+$/, ''),
    apiKey: apiKey ?? LOCAL_SANDBOX_API_KEY,
    timeoutMs: integerOption(options.timeoutMs, 10_000, 'timeoutMs', 1),
    readRetries: integerOption(options.readRetries, 2, 'readRetries', 0),
    readRetryBackoffMs: integerOption(options.readRetryBackoffMs, 200, 'readRetryBackoffMs', 0),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function integerOption(value: number | undefined, fallback: number, name: string, min: 0 | 1): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < min) {
    throw new RangeError(`${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer`);
  }
  return resolved;
}
