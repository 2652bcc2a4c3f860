import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { request as httpRequest } from 'undici';
import {
  ProviderHttpError,
  ProviderNetworkError,
  ProviderRejectedError,
  ProviderTimeoutError,
  type ProviderError,
  type ProviderNotConfiguredError,
} from '../provider-errors.js';
import { providerConnectionOf, type ProviderClientOptions, type ProviderConnection } from './provider-client-options.js';

/** The response headers a client reads (names are case-insensitive; repeated values joined with ", "). */
export interface ProviderHeaders {
  get(name: string): string | null;
}

export interface ProviderResponse<T> {
  status: number;
  headers: ProviderHeaders;
  body: T;
}

export interface ProviderRequest {
  /** Names the call in error messages, e.g. "purchase provider createTransaction". */
  operation: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Answer null instead of throwing when the provider says 404. */
  notFoundAsNull?: boolean;
}

/**
 * JSON over undici's request (keep-alive connections of its global pool; fetch cost several
 * times the CPU per call for the same exchange) with one timeout per attempt, covering the
 * response body. Redirects are not followed: a provider answers, it does not redirect. Only GET is ever retried: a POST to a provider
 * may move money, and an unanswered one is resolved by a lookup, never by sending it again.
 * Error messages name the operation and status, never the API key or a body.
 */
export class ProviderHttpTransport {
  private readonly connection: ProviderConnection | ProviderNotConfiguredError;

  constructor(provider: string, options: ProviderClientOptions) {
    this.connection = providerConnectionOf(provider, options);
  }

  async get<T>(request: ProviderRequest & { notFoundAsNull: true }): Promise<ProviderResponse<T> | null>;
  async get<T>(request: ProviderRequest): Promise<ProviderResponse<T>>;
  async get<T>(request: ProviderRequest): Promise<ProviderResponse<T> | null> {
    const connection = this.usableConnection();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send<T>(connection, 'GET', request, undefined);
      } catch (error) {
        if (attempt >= connection.readRetries || !isWorthRetrying(error)) throw error;
        await sleep(connection.readRetryBackoffMs * 2 ** attempt);
      }
    }
  }

  async post<T>(request: ProviderRequest & { notFoundAsNull: true }, body: unknown): Promise<ProviderResponse<T> | null>;
  async post<T>(request: ProviderRequest, body: unknown): Promise<ProviderResponse<T>>;
  async post<T>(request: ProviderRequest, body: unknown): Promise<ProviderResponse<T> | null> {
    return this.send<T>(this.usableConnection(), 'POST', request, body);
  }

  private usableConnection(): ProviderConnection {
    if (this.connection instanceof Error) throw this.connection;
    return this.connection;
  }

  private async send<T>(
    connection: ProviderConnection,
    method: 'GET' | 'POST',
    request: ProviderRequest,
    body: unknown,
  ): Promise<ProviderResponse<T> | null> {
    const url = new URL(connection.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    let response: { status: number; headers: ProviderHeaders };
    let text: string;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), connection.timeoutMs);
    try {
      const answer = await httpRequest(url, {
        method,
        headers: {
          accept: 'application/json',
          'x-api-key': connection.apiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: deadline.signal,
      });
      response = { status: answer.statusCode, headers: headersOf(answer.headers) };
      text = await answer.body.text();
    } catch (error) {
      if (deadline.signal.aborted || isTimeout(error)) throw new ProviderTimeoutError(request.operation, connection.timeoutMs);
      throw new ProviderNetworkError(request.operation, error);
    } finally {
      clearTimeout(timer);
    }

    if (response.status === 404 && request.notFoundAsNull) return null;
    if (response.status >= 500) throw new ProviderHttpError(request.operation, response.status);
    const parsed = parseJson(text);
    if (response.status >= 400) throw rejectionOf(request.operation, response, parsed);
    if (response.status < 200 || response.status >= 300 || parsed === undefined) {
      throw new ProviderHttpError(request.operation, response.status, `unreadable answer (HTTP ${response.status})`);
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
}

function headersOf(raw: IncomingHttpHeaders): ProviderHeaders {
  return {
    get: (name) => {
      const value = raw[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** By name, not class: an abort may reject with a DOMException, which need not share our realm's Error. */
function isTimeout(error: unknown): boolean {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

function isWorthRetrying(error: unknown): error is ProviderError {
  return error instanceof ProviderTimeoutError || error instanceof ProviderNetworkError || error instanceof ProviderHttpError;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads `{ errors: [{ code, message }] }` and a 429's wait, tolerating any other body. */
function rejectionOf(operation: string, response: { status: number; headers: ProviderHeaders }, body: unknown): ProviderRejectedError {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const first = Array.isArray(record.errors) ? (record.errors[0] as Record<string, unknown> | undefined) : undefined;
  const code = typeof first?.code === 'string' ? first.code : null;
  const message = typeof first?.message === 'string' ? first.message.slice(0, 200) : null;
  const retryAfter =
    typeof record.retry_after_seconds === 'number'
      ? record.retry_after_seconds
      : Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  return new ProviderRejectedError(operation, response.status, code, message, Number.isFinite(retryAfter) ? retryAfter : null);
}
