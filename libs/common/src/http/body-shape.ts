import { DomainError, ValidationFailedError } from '../errors/domain-error.js';

/**
 * How deep a JSON body may nest (objects and arrays, the body itself is level 1). The deepest
 * request any contract defines is 4 (a batch: body → payouts → item → recipient → bank_account
 * is 5 with the array), so 32 leaves room and stops a body nested thousands deep before the
 * validation (class-transformer and class-validator recurse) can overflow the stack.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Keys no JSON object may carry: every member of Object.prototype (`__proto__`, `constructor`,
 * `toString`, `hasOwnProperty`, ...) plus `prototype`. Copying such a key onto a plain object
 * either changes its prototype (`__proto__`) or shadows a method the code relies on, which is
 * why they used to vanish silently; they are refused by name instead.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * Walks a parsed JSON body without recursion (an explicit stack) and returns the field errors:
 * a body nested deeper than MAX_JSON_DEPTH (`body`), and every reserved key by its path. The
 * walk stops going deeper at the limit, so its cost is bounded by the body's size.
 */
export function bodyShapeProblems(body: unknown, maxDepth = MAX_JSON_DEPTH): Record<string, string[]> {
  // No prototype: a `__proto__` path must become a key of its own, not this object's prototype.
  const problems: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  if (typeof body !== 'object' || body === null) return problems;
  const stack: Array<{ value: object; path: string; depth: number }> = [{ value: body, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (depth > maxDepth) {
      problems.body = [`body must not be nested more than ${maxDepth} levels deep`];
      continue;
    }
    // Own keys only: JSON.parse makes `__proto__` an own property, never a prototype change.
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      const childPath = path ? `${path}.${key}` : key;
      if (!Array.isArray(value) && RESERVED_KEYS.has(key)) {
        problems[childPath] = [`key "${key}" is reserved and not accepted`];
        continue;
      }
      if (typeof child === 'object' && child !== null) stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return problems;
}

interface JsonRequest {
  method: string;
  body?: unknown;
  headers: Record<string, string | string[] | undefined>;
  is(types: string[]): string | false | null;
}

/** Whether a request carries a body (as Node's type-is decides: a length above 0 or chunked). */
function hasBody(request: JsonRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (typeof length === 'string' && length !== '' && length !== '0');
}

/**
 * Express middleware after the JSON parser: refuses a JSON body nested too deep or carrying a
 * reserved key with VALIDATION_FAILED (422) in the service's envelope, before any recursive
 * processing sees it.
 */
export function jsonBodyShapeGuard() {
  return (request: JsonRequest, _response: unknown, next: (error?: unknown) => void): void => {
    if (typeof request.body !== 'object' || request.body === null || !request.is(['application/json', '+json'])) return next();
    const problems = bodyShapeProblems(request.body);
    if (Object.keys(problems).length > 0) return next(new ValidationFailedError(problems));
    next();
  };
}

/**
 * Express middleware for the vendor API: a write carrying a body that is not JSON answers 415
 * UNSUPPORTED_MEDIA_TYPE (instead of reaching validation as an empty body and answering 422).
 */
export function jsonOnlyWrites() {
  return (request: JsonRequest, _response: unknown, next: (error?: unknown) => void): void => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || !hasBody(request)) return next();
    if (request.is(['application/json', '+json'])) return next();
    next(new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json'));
  };
}
