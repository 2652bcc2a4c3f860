/**
 * Every failure of a provider call, as a class with a stable code. `outcomeUnknown` answers the
 * question that matters after a call that creates a money movement: might the provider have
 * acted? When true, resolve it by looking the id up at the provider, never by submitting again.
 */
export abstract class ProviderError extends Error {
  abstract readonly code: string;
  abstract readonly outcomeUnknown: boolean;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A failed call of one operation: the message names the operation, then what went wrong. */
export abstract class ProviderCallError extends ProviderError {
  constructor(
    readonly operation: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${detail}`, options);
  }
}

/** No answer within the timeout: the provider may or may not have acted. */
export class ProviderTimeoutError extends ProviderCallError {
  readonly code = 'PROVIDER_TIMEOUT';
  readonly outcomeUnknown = true;

  constructor(
    operation: string,
    readonly timeoutMs: number,
  ) {
    super(operation, `no answer within ${timeoutMs} ms`);
  }
}

/** The connection failed or broke; a request may still have reached the provider. */
export class ProviderNetworkError extends ProviderCallError {
  readonly code = 'PROVIDER_NETWORK_ERROR';
  readonly outcomeUnknown = true;

  constructor(operation: string, cause: unknown) {
    super(operation, 'network failure', { cause });
  }
}

/**
 * A 5xx, or an answer we cannot read. Even a provider that says a 5xx created nothing is not
 * taken at its word on a create: the caller looks the id up.
 */
export class ProviderHttpError extends ProviderCallError {
  readonly code = 'PROVIDER_HTTP_ERROR';
  readonly outcomeUnknown = true;

  constructor(
    operation: string,
    readonly status: number,
    detail = `HTTP ${status}`,
  ) {
    super(operation, detail);
  }
}

/**
 * A 4xx: the provider refused the request. A 409 means the provider already holds a record
 * for our id (from an earlier call), so its outcome is unknown to this caller.
 */
export class ProviderRejectedError extends ProviderCallError {
  readonly code = 'PROVIDER_REJECTED';
  readonly outcomeUnknown: boolean;

  constructor(
    operation: string,
    readonly status: number,
    /** The provider's own error code, when it sent one (e.g. AMOUNT_INCREMENT_INVALID). */
    readonly providerCode: string | null,
    providerMessage: string | null,
    /** From a 429: how long the provider asks us to wait. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(operation, `HTTP ${status}${providerCode ? ` ${providerCode}` : ''}${providerMessage ? `: ${providerMessage}` : ''}`);
    this.outcomeUnknown = status === 409;
  }
}

/** Production without a base URL or API key: refuse every call rather than talk to a default. */
export class ProviderNotConfiguredError extends ProviderError {
  readonly code = 'PROVIDER_NOT_CONFIGURED';
  readonly outcomeUnknown = false;

  constructor(
    readonly provider: string,
    missing: string[],
  ) {
    super(`${provider} is not configured: missing ${missing.join(', ')}`);
  }
}
