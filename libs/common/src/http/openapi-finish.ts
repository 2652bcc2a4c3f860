import type { OpenAPIObject } from '@nestjs/swagger';
import type { ApiEnvelopeFormat } from './api-envelope.js';
import { exampleOf } from './openapi-examples.js';
import { integerNumbers, toOpenApi31, walk, type Json } from './openapi-schema-passes.js';
import { describeWebhooks, type OpenApiWebhooks } from './openapi-webhooks.js';
import { IDEMPOTENT_REPLAYED_HEADER } from './idempotent-replay.js';

export { exampleOf } from './openapi-examples.js';

/**
 * What a gateway adds to its generated document so that a client generator (openapi-typescript,
 * hey-api) turns it into good code: one server rule, clean names, declared errors, headers and
 * examples. Decorators describe each operation; this pass applies the rules that hold for every
 * operation of a gateway, so a new controller cannot forget them (test/api-description checks).
 */
export interface OpenApiFinish {
  /** The gateway's envelope: its catalogue (status and fixed message per code), rate-limit code and error bodies. */
  envelope: ApiEnvelopeFormat<string>;
  /**
   * `servers`: the base address every path is relative to. The payout gateway's is its origin
   * (its contract writes paths with `/api/v1`); the purchase gateway's is origin + `/api/v1`
   * (its contract's base address includes the prefix), with `pathPrefix` set to match.
   */
  servers: Array<{ url: string; description: string }>;
  /**
   * A prefix every route starts with that the `servers` URLs already carry (`/api/v1`): it is
   * taken off every path, so `servers[0].url` + path is the URL a client calls.
   */
  pathPrefix?: string;
  /** Description of every tag the controllers use. */
  tags: Record<string, string>;
  /** Operations whose success may be an idempotent replay (header `Idempotent-Replayed: true`). */
  replayable: string[];
  /** Extra fields an error code carries next to the code, for its example (e.g. remaining_minor). */
  errorDetails?: Record<string, Record<string, unknown>>;
  /**
   * The signed events this gateway POSTs to a vendor's endpoints (OpenAPI 3.1 `webhooks`): per
   * event type, when it is sent and the component schema of its `data` (after renaming).
   */
  webhooks?: OpenApiWebhooks;
  /**
   * Schema rules the decorators cannot express (a union on a discriminator, a member required by
   * another one's value), applied to the renamed component schemas before examples are drawn.
   */
  refineSchemas?: (schemas: Record<string, Json>) => void;
}

/** What the logging middleware accepts as a caller's X-Request-Id (anything else is replaced by a fresh UUID). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Sent with every answer (logging middleware): quote it to support. */
const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: 'Your correlation id for this request, echoed on the answer and written to the logs; another value (or none) gets a fresh UUID',
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source, maxLength: 128 },
};
const REQUEST_ID = { description: 'Correlation id of this request (echoed when the caller sent a safe one)', schema: { type: 'string', example: 'c3f0b6a2-51f4-4c38-9a51-0f6f4f5c2d10' } };
/** Every API answer is live money state: never cached (configure-http-app sets it on every /api route). */
const CACHE_CONTROL = { description: 'Always `no-store`: answers are live money state', schema: { type: 'string', enum: ['no-store'] } };
const RATE_LIMIT_LIMIT = { description: "Requests allowed in the current one-minute window of this token's read or write bucket", schema: { type: 'integer', example: 600 } };
const RATE_LIMIT_REMAINING = { description: 'Requests left in the current window', schema: { type: 'integer', example: 599 } };
const RETRY_AFTER = { description: 'Seconds to wait before retrying', schema: { type: 'integer', example: 5 } };
const IDEMPOTENT_REPLAYED = { description: '`true` when this answer replays a request already accepted (no second provider submission); absent otherwise', schema: { type: 'string', enum: ['true'] } };

const ERROR_ENVELOPE = 'ErrorEnvelope';

/** Applies the gateway-wide rules to a freshly generated document (mutates and returns it). */
export function finishOpenApiDocument(document: OpenAPIObject, finish: OpenApiFinish): OpenAPIObject {
  const doc = document as Json;
  doc.servers = finish.servers;
  if (finish.pathPrefix) relativePaths(doc, finish.pathPrefix);
  // Opaque random tokens, not JWTs: a generator must not suggest decoding them.
  doc.components.securitySchemes.bearer = {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'opaque',
    description: 'Opaque vendor API token: `gwt_test_…` (sandbox and development) or `gwt_live_…` (production). Older `gwt_…` tokens stay valid.',
  };
  renameSchemas(doc);
  finish.refineSchemas?.(doc.components.schemas);
  doc.tags = Object.entries(finish.tags).map(([name, description]) => ({ name, description }));
  // Vendors integrate under their agreement with the operator: no public licence is granted.
  doc.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
  const { envelope } = finish;

  for (const [, pathItem] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const controllerDefault = /^[A-Za-z]+Controller_([A-Za-z0-9]+)$/.exec(operation.operationId ?? '');
      if (controllerDefault) operation.operationId = controllerDefault[1];
      fixParameters(operation);
      operation.parameters = [...(operation.parameters ?? []).filter((parameter: Json) => parameter.name !== REQUEST_ID_PARAMETER.name), REQUEST_ID_PARAMETER];
      const authenticated = (operation.security ?? []).length > 0;
      if (authenticated) {
        ensureError(operation, 401, ['UNAUTHENTICATED']);
        ensureError(operation, 403, ['FORBIDDEN']);
        ensureError(operation, 429, [envelope.rateLimitCode]);
        ensureError(operation, 503, ['SERVICE_UNAVAILABLE']);
      }
      // Any operation can be sent a request the framework cannot read (an undecodable path such
      // as `%ZZ`, a body that is not valid JSON, nested deeper than 32 levels or carrying a
      // reserved key such as `__proto__`): 422 VALIDATION_FAILED naming the field.
      ensureError(operation, 422, ['VALIDATION_FAILED']);
      // A write whose body is not `application/json` (e.g. `text/plain`) is refused unread.
      if (method !== 'get') ensureError(operation, 415, ['UNSUPPORTED_MEDIA_TYPE']);
      ensureError(operation, 500, ['INTERNAL_ERROR']);
      for (const [statusText, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const status = Number(statusText);
        if (status >= 400) finishErrorResponse(response, status, finish);
        else finishSuccessResponse(doc, response, finish.replayable.includes(operation.operationId));
        response.headers = { ...headersFor(status, authenticated), ...(response.headers ?? {}) };
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && body.example === undefined && body.examples === undefined) body.example = exampleOf(doc, body.schema, 'request');
    }
  }
  if (finish.webhooks) describeWebhooks(doc, finish.webhooks);
  walk(doc, integerNumbers);
  toOpenApi31(doc);
  return document;
}

/** Takes `prefix` off every path; the servers must end with it, so no URL changes. */
function relativePaths(doc: Json, prefix: string): void {
  const servers: Array<{ url: string }> = doc.servers ?? [];
  if (servers.length === 0 || servers.some((server) => !server.url.endsWith(prefix))) throw new Error(`OpenAPI: every server URL must end with the path prefix ${prefix}`);
  const paths: Record<string, Json> = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!path.startsWith(`${prefix}/`)) throw new Error(`OpenAPI: ${path} does not start with the path prefix ${prefix}`);
    paths[path.slice(prefix.length)] = item;
  }
  doc.paths = paths;
}

/** `*Schema` and `*Dto` are implementation words: responses are plain nouns, bodies end in `Request`. */
function renameSchemas(doc: Json): void {
  const schemas = doc.components?.schemas ?? {};
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const renamed = /(Schema|Dto)$/.test(name) ? name.replace(/(Schema|Dto)$/, '') : name.replace(/Body$/, 'Request');
    if (renamed !== name && renamed.length > 0) renames.set(name, renamed);
  }
  const targets = new Set([...Object.keys(schemas).filter((name) => !renames.has(name)), ...renames.values()]);
  if (targets.size !== Object.keys(schemas).length) throw new Error('OpenAPI schema names collide after renaming');
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [renames.get(name) ?? name, schema]));
  walk(doc, (node) => {
    if (typeof node.$ref === 'string') {
      const match = /^#\/components\/schemas\/(.+)$/.exec(node.$ref);
      if (match && renames.has(match[1])) node.$ref = `#/components/schemas/${renames.get(match[1])}`;
    }
  });
}

/** A `default` on an optional query parameter makes generators type it as required: keep it in words. */
function fixParameters(operation: Json): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.schema && parameter.schema.default !== undefined) {
      const fallback = parameter.schema.default;
      delete parameter.schema.default;
      parameter.description = `${parameter.description ? `${parameter.description}. ` : ''}Default ${JSON.stringify(fallback)}.`;
    }
  }
}

function ensureError(operation: Json, status: number, codes: string[]): void {
  const key = String(status);
  const existing = operation.responses[key];
  if (!existing) {
    operation.responses[key] = { description: codes.map((code) => `\`${code}\``).join(', '), content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE}` } } } };
    return;
  }
  // Declared without the code (or without any schema, as the auth decorators do): add it.
  const listed = codesIn(existing.description ?? '');
  const missing = codes.filter((code) => !listed.includes(code));
  if (missing.length > 0) existing.description = [existing.description, ...missing.map((code) => `\`${code}\``)].filter(Boolean).join(', ');
  if (!existing.content?.['application/json']?.schema) existing.content = { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE}` } } };
}

function codesIn(description: string): string[] {
  return [...description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]);
}

/** The codes this operation answers with this status, as an enum, with one example per code. */
function finishErrorResponse(response: Json, status: number, finish: OpenApiFinish): void {
  const { catalogue, openApi } = finish.envelope;
  const codes = [...new Set(codesIn(response.description ?? ''))].filter((code) => Object.hasOwn(catalogue, code) && catalogue[code].status === status);
  if (codes.length === 0) throw new Error(`OpenAPI: a ${status} response names no error code of that status: ${response.description}`);
  const envelope = { $ref: `#/components/schemas/${ERROR_ENVELOPE}` };
  const examples = Object.fromEntries(codes.map((code) => [code, { summary: catalogue[code].message, value: errorExample(finish, code, status) }]));
  response.content = { 'application/json': { schema: { allOf: [envelope, openApi.errorCodesSchema(codes)] }, examples } };
}

function errorExample(finish: OpenApiFinish, code: string, status: number): unknown {
  const { envelope } = finish;
  return envelope.error({
    code,
    message: envelope.catalogue[code].message,
    details: finish.errorDetails?.[code] ?? {},
    fieldErrors: code === 'VALIDATION_FAILED' ? envelope.openApi.exampleFieldErrors : {},
    requestId: status >= 500 ? 'c3f0b6a2-51f4-4c38-9a51-0f6f4f5c2d10' : undefined,
  });
}

function finishSuccessResponse(doc: Json, response: Json, replayable: boolean): void {
  const media = response.content?.['application/json'];
  if (media?.schema) {
    // Envelopes always carry these members; without `required` generators make them optional.
    const schema = media.schema;
    if (schema.properties?.success && schema.properties?.data && !schema.required) {
      schema.required = Object.keys(schema.properties).filter((name) => ['success', 'message', 'data'].includes(name));
    }
    if (media.example === undefined && media.examples === undefined) media.example = exampleOf(doc, schema, 'response');
  }
  if (replayable) response.headers = { [IDEMPOTENT_REPLAYED_HEADER]: IDEMPOTENT_REPLAYED, ...(response.headers ?? {}) };
}

/**
 * Headers by status. The rate-limit headers are set once the token is authenticated, so 401/403
 * (refused by the guard before the limiter) do not carry them; 429 and 503 carry Retry-After.
 */
function headersFor(status: number, authenticated: boolean): Record<string, Json> {
  const headers: Record<string, Json> = { 'X-Request-Id': REQUEST_ID, 'Cache-Control': CACHE_CONTROL };
  if (authenticated && status !== 401 && status !== 403 && status !== 500 && status !== 503) {
    headers['X-RateLimit-Limit'] = RATE_LIMIT_LIMIT;
    headers['X-RateLimit-Remaining'] = RATE_LIMIT_REMAINING;
  }
  if (status === 429 || status === 503) headers['Retry-After'] = RETRY_AFTER;
  return headers;
}

