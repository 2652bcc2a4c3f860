import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response as SupertestResponse } from 'supertest';

export type EnvelopeStyle = 'purchase' | 'payout';

/**
 * Statuses any operation may answer without listing them: authentication (401/403), an
 * unknown route or id (404), the body limit (413), an unsupported body (415), rate limits (429)
 * and an infrastructure outage (503). Anything else must be documented on the operation.
 */
const GLOBAL_STATUSES = new Set([401, 403, 404, 413, 415, 429, 503]);

/** 431 (headers or URL over Node's 16 KB limit) and 414 come from Node's HTTP server itself. */
const TRANSPORT_REFUSALS = new Set([414, 431]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literalLength: number;
  responses: Record<string, Json>;
}

export interface ResponseCheck {
  method: string;
  /** The request path, query string allowed. */
  path: string;
  status: number;
  body: unknown;
}

/**
 * Validates answers against the service's own OpenAPI document (`/docs-json`): the status must
 * be documented for the operation (or be one of GLOBAL_STATUSES), and the body must match the
 * documented schema (the error envelope for undocumented error statuses). Also checks the
 * envelope rules the document states in words. Counts what it saw, for the report.
 */
/** The path of `servers[0].url` (`/api/v1` for the purchase document, empty for the payout one). */
export function serverBasePath(document: Json): string {
  const url = document.servers?.[0]?.url;
  return typeof url === 'string' ? new URL(url).pathname.replace(/\/+$/, '') : '';
}

export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly errorEnvelope: ValidateFunction;
  private readonly webhooks = new Map<string, { body: ValidateFunction; headers: Array<{ name: string; required: boolean; validate: ValidateFunction }> }>();
  readonly stats = { validated: 0, transportRefusals: 0, undocumentedGlobalStatuses: new Map<string, number>() };

  constructor(
    readonly document: Json,
    readonly style: EnvelopeStyle,
  ) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: validated as written, in Ajv's strict mode
    // (an unknown keyword, format or type slip is an error, not ignored), formats checked.
    if (!/^3\.1\./.test(String(document.openapi))) throw new Error(`OpenAPI ${document.openapi}: the gateways serve OpenAPI 3.1, whose schemas are JSON Schema`);
    this.ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
    const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // OpenAPI's own annotations on a schema: they describe, never constrain (`discriminator` only
    // names the member `oneOf` already decides on).
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    this.ajv.addSchema({ $id: 'openapi', $defs: refsTo('openapi', document.components?.schemas ?? {}) });
    // Paths are relative to servers[0].url: the purchase document's carries /api/v1, the payout one's is the origin.
    const basePath = serverBasePath(document);
    this.operations = Object.entries(document.paths as Record<string, Record<string, Json>>)
      .flatMap(([template, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${(basePath + template).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
          literalLength: template.replace(/\{[^}]+\}/g, '').length,
          responses: operation.responses ?? {},
        })),
      )
      // A literal segment wins over a parameter: /transactions/by-reference/{reference} before /transactions/{id}.
      .sort((a, b) => b.literalLength - a.literalLength);
    this.errorEnvelope = this.ajv.compile(refsTo('openapi', { $ref: '#/components/schemas/ErrorEnvelope' }));
    for (const [type, item] of Object.entries((document.webhooks ?? {}) as Record<string, Json>)) {
      const post = item.post;
      this.webhooks.set(type, {
        body: this.ajv.compile(refsTo('openapi', post.requestBody.content['application/json'].schema)),
        headers: (post.parameters ?? []).filter((parameter: Json) => parameter.in === 'header').map((parameter: Json) => ({ name: String(parameter.name), required: parameter.required === true, validate: this.ajv.compile(parameter.schema) })),
      });
    }
  }

  /** The document of a running app (`GET /docs-json`). */
  static async fromApp(http: () => { get: (path: string) => PromiseLike<{ status: number; body: Json }> }, style: EnvelopeStyle): Promise<OpenApiResponseValidator> {
    const response = await http().get('/docs-json');
    if (response.status !== 200) throw new Error(`GET /docs-json answered ${response.status}`);
    return new OpenApiResponseValidator(response.body, style);
  }

  operationOf(method: string, path: string): Operation | undefined {
    // Express routes are not strict: `/transactions/` is `/transactions`.
    const bare = path.split('?')[0].replace(/(.)\/+$/, '$1');
    return this.operations.find((operation) => operation.method === method.toUpperCase() && operation.pattern.test(bare));
  }

  /** Problems found (empty when the answer is as documented). */
  check({ method, path, status, body }: ResponseCheck): string[] {
    if (TRANSPORT_REFUSALS.has(status)) {
      // Node's HTTP parser answers these before the app sees the request, so no envelope exists.
      this.stats.transportRefusals += 1;
      return [];
    }
    const operation = this.operationOf(method, path);
    // A CSV export answers its file, not the envelope: the text the description's text/csv declares.
    const csv = operation?.responses[String(status)]?.content?.['text/csv'];
    if (csv && status < 400 && typeof body === 'string') {
      this.stats.validated += 1;
      return csv.schema?.type === 'string' && body.endsWith('\r\n') ? [] : [`${method} ${operation!.template} ${status}: not the CSV file its description declares`];
    }
    const problems = envelopeProblems(this.style, status, body);
    if (!operation) {
      // Unknown routes answer the error envelope (404) like everything else.
      if (status < 400) problems.push(`${method} ${path}: ${status} for a route the document does not list`);
      else if (!this.errorEnvelope(body)) problems.push(`${method} ${path} ${status}: not the error envelope: ${this.ajv.errorsText(this.errorEnvelope.errors)}`);
      this.stats.validated += 1;
      return problems;
    }
    const documented = operation.responses[String(status)] ?? operation.responses.default;
    if (!documented) {
      if (!GLOBAL_STATUSES.has(status) && !isMalformedRequest(this.style, status, body)) {
        problems.push(`${method} ${operation.template}: status ${status} is not documented`);
      } else {
        const key = `${method} ${operation.template} ${status}`;
        this.stats.undocumentedGlobalStatuses.set(key, (this.stats.undocumentedGlobalStatuses.get(key) ?? 0) + 1);
      }
      if (status >= 400 && !this.errorEnvelope(body)) problems.push(`${method} ${operation.template} ${status}: not the error envelope: ${this.ajv.errorsText(this.errorEnvelope.errors)}`);
      this.stats.validated += 1;
      return problems;
    }
    const schema = documented.content?.['application/json']?.schema;
    if (schema) {
      const validate = this.validatorFor(`${method} ${operation.template} ${status}`, schema);
      if (!validate(body)) problems.push(`${method} ${operation.template} ${status}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`);
    }
    this.stats.validated += 1;
    return problems;
  }

  /** Checks a supertest response; throws with every problem found. */
  assertResponse(response: SupertestResponse): void {
    const request = (response as unknown as { req: { method: string; path: string } }).req;
    this.assertValid({ method: request.method, path: request.path, status: response.status, body: response.body });
  }

  assertValid(check: ResponseCheck): void {
    const problems = this.check(check);
    if (problems.length > 0) throw new Error(`response does not match the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(check.body).slice(0, 1000)}`);
  }

  /** The event types the document's `webhooks` describe. */
  webhookTypes(): string[] {
    return [...this.webhooks.keys()];
  }

  /** Problems of a delivered webhook (its parsed body and its request headers) against the document's `webhooks`. */
  webhookProblems(body: { type?: unknown }, headers: Record<string, unknown>): string[] {
    const type = String(body.type);
    const described = this.webhooks.get(type);
    if (!described) return [`webhook ${type}: not in the document's webhooks`];
    const problems = described.body(body) ? [] : [`webhook ${type}: ${this.ajv.errorsText(described.body.errors, { separator: '; ' })}`];
    for (const header of described.headers) {
      const value = headers[header.name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`webhook ${type}: header ${header.name} missing`);
      } else if (!header.validate(value)) problems.push(`webhook ${type}: header ${header.name} ${JSON.stringify(value)}: ${this.ajv.errorsText(header.validate.errors)}`);
    }
    return problems;
  }

  /** Problems of `value` against a schema of the document (request bodies, examples); empty when it matches. */
  schemaProblems(key: string, schema: Json, value: unknown): string[] {
    const validate = this.validatorFor(`schema ${key}`, schema);
    return validate(value) ? [] : [`${key}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`];
  }

  private validatorFor(key: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(refsTo('openapi', schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/**
 * A request the framework could not even read (an undecodable path such as `%ZZ`): 422
 * VALIDATION_FAILED on the `request` field, possible on any operation.
 */
function isMalformedRequest(style: EnvelopeStyle, status: number, body: unknown): boolean {
  if (status !== 422 || typeof body !== 'object' || body === null) return false;
  const fields = style === 'purchase' ? (body as { error?: { fields?: object } }).error?.fields : (body as { errors?: object }).errors;
  return fields !== undefined && Object.keys(fields).length === 1 && 'request' in fields;
}

/** The envelope rules of both contracts, independent of the document. */
export function envelopeProblems(style: EnvelopeStyle, status: number, body: unknown): string[] {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null) return [`${status}: body is not a JSON object (${JSON.stringify(body)?.slice(0, 100)})`];
  const record = body as Record<string, unknown>;
  if (status < 400) {
    if (record.success !== true) problems.push(`${status}: success is not true`);
    if (!('data' in record)) problems.push(`${status}: no data`);
    if (style === 'purchase' && record.message !== 'OK') problems.push(`${status}: message is not OK`);
    return problems;
  }
  if (record.success !== false) problems.push(`${status}: success is not false`);
  if (style === 'purchase') {
    const error = record.error as Record<string, unknown> | undefined;
    if (typeof error?.code !== 'string') problems.push(`${status}: error.code missing`);
    else if (record.message !== error.code) problems.push(`${status}: message ${String(record.message)} differs from error.code ${error.code}`);
  } else {
    if (typeof record.code !== 'string') problems.push(`${status}: code missing`);
    if (typeof record.message !== 'string') problems.push(`${status}: message missing`);
    if (typeof record.errors !== 'object' || record.errors === null || Array.isArray(record.errors)) problems.push(`${status}: errors is not an object`);
  }
  if (status >= 500 && status !== 503) problems.push(`${status}: a server error`);
  return problems;
}

/** Points the document's local references (`#/components/...`) at the registered document. */
function refsTo(id: string, schema: Json): Json {
  if (Array.isArray(schema)) return schema.map((item) => refsTo(id, item));
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/') ? `${id}#/$defs/${value.slice('#/components/schemas/'.length)}` : refsTo(id, value)]),
  );
}
