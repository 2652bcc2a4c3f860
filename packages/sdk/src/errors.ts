/**
 * Errors of both gateways. Every error the SDK throws extends `GatewayError`:
 *
 * - `GatewayApiError` (the gateway answered with an error status), by kind:
 *   `AuthenticationError` (401), `PermissionError` (403), `NotFoundError` (404),
 *   `ValidationError` (400/413/415/422 `VALIDATION_FAILED` and other malformed requests),
 *   `ConflictError` (409; `IdempotencyConflictError` for `IDEMPOTENCY_CONFLICT` and `REFERENCE_CONFLICT`),
 *   `RateLimitError` (429, with `retryAfter`), `ProviderError` (`PROVIDER_*` codes),
 *   `ServerError` (5xx). Business refusals with none of these kinds (e.g. `INSUFFICIENT_FUNDS`,
 *   `DAILY_CAP_EXCEEDED`) are plain `GatewayApiError`s: branch on `code`.
 * - `GatewayTimeoutError` (no answer within the timeout) and `GatewayConnectionError` (network).
 *
 * A request cancelled through your own `AbortSignal` rejects with the signal's reason (an
 * `AbortError` DOMException unless you gave one), exactly as `fetch` does.
 *
 * `instanceof` works in ESM and CommonJS, and even across two copies of the SDK (an ESM and a CJS
 * one in the same process): each class checks a brand registered with `Symbol.for`.
 */

const BRANDS = Symbol.for('@za-gateway/sdk/error-brands');

type Branded = { [BRANDS]?: readonly string[] };

/** Base of every error the SDK throws. */
export class GatewayError extends Error {
  /** The class names of this error and its ancestors, so `instanceof` works across copies of the SDK. */
  declare readonly [BRANDS]: readonly string[];

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const brands: string[] = [];
    for (let proto = new.target.prototype; proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
      if (Object.prototype.hasOwnProperty.call(proto, 'constructor')) brands.push((proto.constructor as { brand?: string }).brand ?? proto.constructor.name);
    }
    Object.defineProperty(this, BRANDS, { value: brands, enumerable: false });
    Object.defineProperty(this, 'name', { value: new.target.brand, enumerable: false, configurable: true, writable: true });
  }

  /**
   * The stable class name used by `instanceof`: the name the class is exported under, given by
   * brandErrorClasses (class names can be minified; this cannot).
   */
  declare static readonly brand: string;

  static override [Symbol.hasInstance](instance: unknown): boolean {
    if (typeof instance !== 'object' || instance === null) return false;
    if (Function.prototype[Symbol.hasInstance].call(this, instance)) return true;
    const brands = (instance as Branded)[BRANDS];
    return Array.isArray(brands) && brands.includes((this as unknown as { brand: string }).brand);
  }
}

/** What the gateway answered, on every API error and in `withResponse()`. */
export interface ResponseMeta {
  /** HTTP status. */
  status: number;
  /** `X-Request-Id`: quote it to support. */
  requestId: string | undefined;
  /** `X-RateLimit-Limit` / `X-RateLimit-Remaining` of the token's bucket, when sent. */
  rateLimit: { limit: number | undefined; remaining: number | undefined };
  /** `Idempotent-Replayed: true`: the answer is a stored earlier result. */
  replayed: boolean;
  /** Every response header. */
  headers: Headers;
}

export function responseMeta(response: Response): ResponseMeta {
  const number = (name: string) => {
    const value = response.headers.get(name);
    return value === null || value.trim() === '' || Number.isNaN(Number(value)) ? undefined : Number(value);
  };
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: { limit: number('x-ratelimit-limit'), remaining: number('x-ratelimit-remaining') },
    replayed: response.headers.get('idempotent-replayed') === 'true',
    headers: response.headers,
  };
}

/**
 * The gateway answered with an error. `Code` is the union of the codes the operation can answer
 * (from the generated types); narrow to it with `isPurchaseError(error, 'createTransaction')` /
 * `isPayoutError(error, 'createPayout')`, and a misspelt code no longer compiles.
 */
export class GatewayApiError<Code extends string = string> extends GatewayError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** The contract's error code (e.g. `VALIDATION_FAILED`); `HTTP_<status>` when the body was not an envelope. */
  readonly code: Code;
  /** Field errors: `field.path` → messages (purchase `error.fields`, payout `errors`); empty when none. */
  readonly errors: Record<string, string[]>;
  /** Correlation id to quote to support (the body's `request_id` or the `X-Request-Id` header). */
  readonly requestId: string | undefined;
  /** Seconds the gateway asked to wait (`Retry-After` on 429 and 503). */
  readonly retryAfterSeconds: number | undefined;
  /** Extra fields the code carries, e.g. `remaining_minor` for DAILY_CAP_EXCEEDED. */
  readonly details: Record<string, unknown>;
  /** The parsed body as received. */
  readonly body: unknown;
  /** The operation (`operationId`) that was called, e.g. `createTransaction`; undefined through `api`. */
  readonly operation: string | undefined;
  /** Status, request id, rate-limit headers and every header of the answer. */
  readonly response: ResponseMeta | undefined;

  constructor(status: number, body: unknown, headers: Headers, operation?: string, response?: Response) {
    const parsed = readEnvelope(status, body);
    super(`${parsed.code} (HTTP ${status})${parsed.message && parsed.message !== parsed.code ? `: ${parsed.message}` : ''}`);
    this.status = status;
    this.code = parsed.code as Code;
    this.errors = parsed.errors;
    this.details = parsed.details;
    this.requestId = parsed.requestId ?? headers.get('x-request-id') ?? undefined;
    const retryAfter = retryAfterMs(headers.get('retry-after'));
    this.retryAfterSeconds = retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000);
    this.body = body;
    this.operation = operation;
    this.response = response ? responseMeta(response) : undefined;
  }
}

/** 401: missing, malformed, expired or revoked token. */
export class AuthenticationError<Code extends string = string> extends GatewayApiError<Code> {}
/** 403: the token or the vendor lacks the ability. */
export class PermissionError<Code extends string = string> extends GatewayApiError<Code> {}
/** 404. */
export class NotFoundError<Code extends string = string> extends GatewayApiError<Code> {}
/** The request itself was refused: `VALIDATION_FAILED` (see `errors`), a body too large, a wrong media type. */
export class ValidationError<Code extends string = string> extends GatewayApiError<Code> {}
/** 409: the request conflicts with the state on the gateway. */
export class ConflictError<Code extends string = string> extends GatewayApiError<Code> {}
/** 409 `IDEMPOTENCY_CONFLICT` (purchase) or `REFERENCE_CONFLICT` (payout): the key was used with another body. */
export class IdempotencyConflictError<Code extends string = string> extends ConflictError<Code> {}
/** 429: throttled. `retryAfter` is the gateway's `Retry-After` in seconds. */
export class RateLimitError<Code extends string = string> extends GatewayApiError<Code> {
  get retryAfter(): number | undefined {
    return this.retryAfterSeconds;
  }
}
/** The provider refused, failed or is not configured (`PROVIDER_*` codes). */
export class ProviderError<Code extends string = string> extends GatewayApiError<Code> {}
/** 5xx: the gateway failed or is unavailable; safe requests were already retried. */
export class ServerError<Code extends string = string> extends GatewayApiError<Code> {}

/** No answer within the timeout (per attempt; safe requests were retried first). */
export class GatewayTimeoutError extends GatewayError {
  constructor(
    readonly timeoutMs: number,
    readonly method: string,
    readonly url: string,
  ) {
    super(`${method} ${url}: no answer within ${timeoutMs} ms`);
  }
}

/** The request never got an answer: DNS, refused connection, reset (safe requests were retried first). */
export class GatewayConnectionError extends GatewayError {
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Thrown by the wait helpers when the object is still not final at the deadline; `last` is the last read. */
export class WaitTimeoutError<T = unknown> extends GatewayError {
  constructor(
    readonly last: T,
    readonly timeoutMs: number,
  ) {
    super(`still not final after ${timeoutMs} ms`);
  }
}

/**
 * Gives each error class its brand: the name it is exported under, written once as an object key,
 * which minifiers keep (unlike class names). Every class the SDK throws is branded here or beside
 * its declaration, so that none shares its parent's brand.
 */
export function brandErrorClasses(classes: Record<string, abstract new (...args: never[]) => GatewayError>): void {
  for (const [name, Kind] of Object.entries(classes)) Object.defineProperty(Kind, 'brand', { value: name, enumerable: false });
}

brandErrorClasses({
  GatewayError,
  GatewayApiError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ValidationError,
  ConflictError,
  IdempotencyConflictError,
  RateLimitError,
  ProviderError,
  ServerError,
  GatewayTimeoutError,
  GatewayConnectionError,
  WaitTimeoutError,
});

const CONFLICT_IDEMPOTENCY = new Set(['IDEMPOTENCY_CONFLICT', 'REFERENCE_CONFLICT']);

/** The error class for an answer: by code where the code says more than the status, else by status. */
export function errorFor(status: number, body: unknown, headers: Headers, operation?: string, response?: Response): GatewayApiError {
  const { code } = readEnvelope(status, body);
  const Kind =
    code.startsWith('PROVIDER_')
      ? ProviderError
      : status === 401
        ? AuthenticationError
        : status === 403
          ? PermissionError
          : status === 404
            ? NotFoundError
            : status === 409
              ? CONFLICT_IDEMPOTENCY.has(code)
                ? IdempotencyConflictError
                : ConflictError
              : status === 429
                ? RateLimitError
                : status >= 500
                  ? ServerError
                  : code === 'VALIDATION_FAILED' || status === 400 || status === 413 || status === 415
                    ? ValidationError
                    : GatewayApiError;
  return new Kind(status, body, headers, operation, response);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function readEnvelope(status: number, body: unknown): { code: string; message?: string; errors: Record<string, string[]>; requestId?: string; details: Record<string, unknown> } {
  if (isObject(body) && isObject(body.error) && typeof body.error.code === 'string') {
    const { code, fields, request_id, ...details } = body.error;
    return { code, message: stringOr(body.message), errors: fieldErrors(fields), requestId: stringOr(request_id), details };
  }
  if (isObject(body) && typeof body.code === 'string') {
    const { code, message, errors, request_id, success: _success, ...details } = body;
    return { code, message: stringOr(message), errors: fieldErrors(errors), requestId: stringOr(request_id), details };
  }
  return { code: `HTTP_${status}`, message: typeof body === 'string' ? body.slice(0, 200) : undefined, errors: {}, details: {} };
}

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function fieldErrors(value: unknown): Record<string, string[]> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([field, messages]) => [field, Array.isArray(messages) ? messages.map(String) : [String(messages)]]));
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
