/**
 * One error type for both gateways. Their envelopes differ (each is exactly as its contract
 * says): purchase `{success: false, message, error: {code, fields?, ...}}`, payout
 * `{success: false, code, message, errors}`; this reads either, so callers branch on `code`.
 */
export class GatewayApiError<Code extends string = string> extends Error {
  override readonly name = 'GatewayApiError';
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

  constructor(status: number, body: unknown, headers: Headers) {
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
  }
}

/** Thrown by the wait helpers when the object is still not final at the deadline; `last` is the last read. */
export class WaitTimeoutError<T = unknown> extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly last: T,
    readonly timeoutMs: number,
  ) {
    super(`still not final after ${timeoutMs} ms`);
  }
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
