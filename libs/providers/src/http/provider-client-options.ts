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

export interface ProviderConnection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  readRetries: number;
  readRetryBackoffMs: number;
}

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
    timeoutMs: positiveInteger(options.timeoutMs, 10_000, 'timeoutMs'),
    readRetries: nonNegativeInteger(options.readRetries, 2, 'readRetries'),
    readRetryBackoffMs: nonNegativeInteger(options.readRetryBackoffMs, 200, 'readRetryBackoffMs'),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) throw new RangeError(`${name} must be a positive integer`);
  return resolved;
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return resolved;
}
