import fc from 'fast-check';
import { serverBasePath } from './openapi-validator.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** One generated request. */
export interface FuzzRequest {
  /** What was generated, for failure reports. */
  label: string;
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON-encoded unless rawBody is set. */
  body?: unknown;
  rawBody?: string;
}

/** Ids, references and product ids that exist, so some requests reach real records. */
export interface KnownValues {
  uuids: string[];
  references: string[];
  integers: number[];
}

export interface FuzzTarget {
  document: Json;
  /** Token with every ability; also sent broken in some cases. */
  token: string;
  known: KnownValues;
}

/** Strings that have broken SQL, JSON, URL and log handling elsewhere. */
export const HOSTILE_STRINGS = [
  "' OR '1'='1",
  "'; DROP TABLE payouts; --",
  "1; SELECT pg_sleep(3)--",
  "\\'; SELECT 1; --",
  '%',
  '_',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uFFFF',
  '𝕳𝖊𝖑𝖑𝖔',
  '‮override',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '0x1F',
  ' ',
  '',
  'Ω≈ç√∫˜µ≤≥÷',
  '\r\nSet-Cookie: x=1',
];

const HOSTILE_NUMBERS = [-1, 0, -0, 0.5, 1.0000001, 1e21, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 2 ** 63, 1e308, Number.MAX_SAFE_INTEGER, 123456789012345680000];

/** Malformed JSON texts (the body parser must answer 4xx, never 5xx). */
const MALFORMED_JSON = ['{', '{"a":', "{'a': 1}", '{"a":1,}', '[1,2', 'tru', '{"a":NaN}', '{"a":1e999999}', '\u0000', '{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"x": 1}}}', '"just a string"', '12', 'null', '[]', '{"a":"\\ud800"}'];

/** encode throws on lone surrogates; those become U+FFFD (raw bad UTF-8 is in the hostile list). */
function encode(value: string): string {
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}

function resolve(document: Json, schema: Json): Json {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 10; depth++) {
    current = current.$ref.replace(/^#\//, '').split('/').reduce((node: Json, key: string) => node?.[key], document);
  }
  if (current?.allOf?.length === 1 && !current.properties) return { ...current, ...resolve(document, current.allOf[0]), allOf: undefined };
  return current ?? {};
}

/** Values that satisfy the schema as far as the schema can say (patterns, enums, ranges). */
export function validValue(document: Json, raw: Json, known: KnownValues, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.example !== undefined && depth > 0) return fc.oneof(fc.constant(schema.example), plainValid(document, schema, known, depth));
  return plainValid(document, schema, known, depth);
}

function plainValid(document: Json, schema: Json, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return fc.oneof(fc.uuid(), fc.constantFrom(...(known.uuids.length ? known.uuids : ['00000000-0000-4000-8000-000000000000'])));
      if (schema.format === 'date') return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' });
      return fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) });
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 100_000 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(document, schema.items ?? {}, known, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object':
    default: {
      if (depth > 4) return fc.constant({});
      const properties: Record<string, Json> = schema.properties ?? {};
      if (Object.keys(properties).length === 0 && schema.additionalProperties) {
        return fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), validValue(document, schema.additionalProperties === true ? { type: 'string' } : schema.additionalProperties, known, depth + 1), { maxKeys: 3 });
      }
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = validValue(document, property, known, depth + 1);
      return fc.record(record, { requiredKeys: [...required].filter((name) => name in record) });
    }
  }
}

/** A value of the wrong kind, or of the right kind at a hostile size or shape. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constantFrom(null, true, false, [], {}, [null], { $gt: '' }, { toString: 'x' }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    fc.integer({ min: 200, max: 20_000 }).map((length) => 'x'.repeat(length)),
    fc.double({ noNaN: true }),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((value) => Number(value)),
    fc.array(fc.constantFrom('a', 1, null), { maxLength: 4 }),
    fc.constant(nested(30)),
    // A string map (metadata, credit_party_identifier) whose keys or values are hostile.
    fc.dictionary(fc.oneof(fc.constantFrom('a', 'mobile_number', 'account_number', 'k\u0000', '\uD800', "' OR 1=1", '__proto__'), fc.stringMatching(/^[a-z_]{1,8}$/)), fc.constantFrom(...HOSTILE_STRINGS), {
      minKeys: 1,
      maxKeys: 3,
    }),
  );
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Breaks one thing in a valid object: drops a required field, adds an unknown one, or poisons a field. */
function mutatedObject(document: Json, schema: Json, known: KnownValues): fc.Arbitrary<unknown> {
  const resolved = resolve(document, schema);
  const names = Object.keys(resolved.properties ?? {});
  const required: string[] = resolved.required ?? [];
  const base = validValue(document, resolved, known) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: Array<fc.Arbitrary<unknown>> = [
    base,
    fc.tuple(base, fc.stringMatching(/^[a-z_]{1,10}$/), hostileValue()).map(([value, key, extra]) => ({ ...value, [`x_${key}`]: extra })),
  ];
  if (required.length > 0) {
    mutations.push(fc.tuple(base, fc.constantFrom(...required)).map(([value, drop]) => Object.fromEntries(Object.entries(value).filter(([key]) => key !== drop))));
  }
  if (names.length > 0) {
    mutations.push(fc.tuple(base, fc.constantFrom(...names), hostileValue()).map(([value, key, poison]) => ({ ...value, [key]: poison })));
    // Nested objects (recipient, payouts[i]) get poisoned one level down too.
    const nestedNames = names.filter((name) => ['object', 'array'].includes(resolve(document, resolved.properties[name]).type) || resolved.properties[name].$ref || resolved.properties[name].allOf);
    if (nestedNames.length > 0) {
      mutations.push(
        fc.tuple(base, fc.constantFrom(...nestedNames)).chain(([value, key]) => {
          const inner = resolve(document, resolved.properties[key]);
          const innerSchema = inner.type === 'array' ? inner.items : inner;
          return mutatedObjectShallow(document, innerSchema, known).map((poisoned) => ({ ...value, [key]: inner.type === 'array' ? [poisoned] : poisoned }));
        }),
      );
    }
  }
  return fc.oneof(...mutations);
}

function mutatedObjectShallow(document: Json, schema: Json, known: KnownValues): fc.Arbitrary<unknown> {
  const resolved = resolve(document, schema);
  const names = Object.keys(resolved.properties ?? {});
  const base = validValue(document, resolved, known) as fc.Arbitrary<Record<string, unknown>>;
  if (names.length === 0) return fc.oneof(base, hostileValue());
  return fc.oneof(
    fc.tuple(base, fc.constantFrom(...names), hostileValue()).map(([value, key, poison]) => ({ ...value, [key]: poison })),
    fc.tuple(base, fc.constantFrom(...names)).map(([value, drop]) => Object.fromEntries(Object.entries(value).filter(([key]) => key !== drop))),
    hostileValue(),
  );
}

function pathValue(document: Json, parameter: Json, known: KnownValues): fc.Arbitrary<string> {
  const schema = resolve(document, parameter.schema ?? {});
  const valid = schema.format === 'uuid' ? fc.oneof(fc.uuid(), fc.constantFrom(...(known.uuids.length ? known.uuids : ['x']))) : schema.type === 'integer' || schema.type === 'number' ? fc.oneof(fc.integer({ min: 1, max: 99_999 }).map(String), fc.constantFrom(...(known.integers.length ? known.integers : [1])).map(String)) : fc.constantFrom(...(known.references.length ? known.references : ['ref']));
  const hostile = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS.filter((value) => value.length > 0)).map(encode),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encode),
    fc.constantFrom('..%2F..%2Fetc', '%00', '%ZZ', '%', '%ED%A0%80', '%C0%AF', '%FF%FE', '-1', '1.5', '1e400', '0x10', '99999999999999999999999', 'x'.repeat(3000), '%2F', '.', '..'),
    fc.integer({ min: 10, max: 600 }).map((length) => 'r'.repeat(length)),
  );
  return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: hostile });
}

function queryValue(document: Json, parameter: Json, known: KnownValues): fc.Arbitrary<string[]> {
  const valid = validValue(document, parameter.schema ?? { type: 'string' }, known).map((value) => [asText(value)]);
  const hostile = hostileValue().map((value) => [asText(value)]);
  const repeated = fc.array(fc.constantFrom('1', '2', 'x', ''), { minLength: 2, maxLength: 3 });
  return fc.oneof(valid, hostile, repeated);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

function authorization(token: string): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ authorization: `Bearer ${token}` }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<Record<string, string>>(
        {},
        { authorization: 'Bearer' },
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: `Bearer ${token}x` },
        { authorization: `Bearer ${token.slice(0, -1)}` },
        { authorization: `bearer ${token}` },
        { authorization: `Bearer ${'A'.repeat(5000)}` },
        { authorization: `Bearer ${token}, Bearer ${token}` },
        { authorization: "Bearer ' OR '1'='1" },
      ),
    },
  );
}

function extraHeaders(): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<Record<string, string>>({}) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { 'content-type': 'text/plain' },
        { 'content-type': 'application/x-www-form-urlencoded' },
        { 'content-type': 'application/json; charset=latin1' },
        { 'content-type': 'application/json; charset=utf-16' },
        { 'content-type': 'application/xml' },
        { 'content-encoding': 'gzip' },
        { 'content-encoding': 'br' },
        { accept: 'text/html' },
        { 'x-request-id': 'x'.repeat(500) },
        { 'x-request-id': "' OR 1=1 --" },
        { 'x-forwarded-for': '1.1.1.1, 2.2.2.2' },
        { 'idempotency-key': 'x'.repeat(129) },
        { 'idempotency-key': 'has space' },
        { 'idempotency-key': "' OR '1'='1" },
        { 'idempotency-key': '' },
      ),
    },
  );
}

/** Every operation of the document as an arbitrary of hostile and near-valid requests. */
export function fuzzRequests({ document, token, known }: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const operations: Array<fc.Arbitrary<FuzzRequest>> = [];
  // Paths are relative to servers[0].url (the purchase document's carries /api/v1).
  const basePath = serverBasePath(document);
  for (const [template, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters: Json[] = operation.parameters ?? [];
      const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
      const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
      const headerParameters = parameters.filter((parameter) => parameter.in === 'header');
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;

      const path = fc.tuple(...pathParameters.map((parameter) => pathValue(document, parameter, known))).map((values) => {
        let built = basePath + template;
        pathParameters.forEach((parameter, index) => (built = built.replace(`{${parameter.name}}`, values[index])));
        return built;
      });
      const query =
        queryParameters.length === 0
          ? fc.constant('')
          : fc
              .tuple(
                fc.subarray(queryParameters),
                fc.array(queryValue(document, { schema: { type: 'string' } }, known), { maxLength: 1 }),
              )
              .chain(([chosen, unknown]) =>
                fc.tuple(...chosen.map((parameter) => queryValue(document, parameter, known).map((values) => values.map((value) => `${encode(parameter.name)}=${encode(value)}`).join('&'))), fc.constant(unknown.length ? `unknown_param=${encode(unknown[0][0])}` : '')),
              )
              .map((pairs) => {
                const joined = pairs.filter((pair) => pair.length > 0).join('&');
                return joined ? `?${joined}` : '';
              });
      const headers = fc
        .tuple(
          authorization(token),
          extraHeaders(),
          fc.tuple(...headerParameters.map((parameter) => fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/), fc.constantFrom('', 'x'.repeat(200), 'ключ', "' OR 1=1")).map((value) => [parameter.name.toLowerCase(), value] as const))),
        )
        .map(([auth, extra, declared]) => ({ ...auth, ...Object.fromEntries(declared.filter(([, value]) => /^[\x20-\x7e]*$/.test(value))), ...extra }));
      const body: fc.Arbitrary<{ body?: unknown; rawBody?: string; kind: string }> = bodySchema
        ? fc.oneof(
            { weight: 5, arbitrary: mutatedObject(document, bodySchema, known).map((value) => ({ body: value, kind: 'mutated' })) },
            { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON).map((raw) => ({ rawBody: raw, kind: 'malformed' })) },
            { weight: 1, arbitrary: hostileValue().map((value) => ({ body: value, kind: 'wrong-type' })) },
            { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 1_200_000 }).map((length) => ({ rawBody: JSON.stringify({ reference: 'x'.repeat(length) }), kind: 'huge' })) },
          )
        : fc.oneof({ weight: 4, arbitrary: fc.constant({ kind: 'none' }) }, { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON).map((raw) => ({ rawBody: raw, kind: 'malformed' })) });

      const upper = method.toUpperCase();
      operations.push(
        fc.tuple(path, query, headers, body).map(([builtPath, builtQuery, builtHeaders, builtBody]) => ({
          label: `${upper} ${template} [${builtBody.kind}]`,
          operation: `${upper} ${template}`,
          method: upper,
          path: `${builtPath}${builtQuery}`,
          headers: builtHeaders,
          // GET cannot carry a body through fetch; the malformed variants go to the writes.
          ...(upper === 'GET' ? {} : builtBody.rawBody !== undefined ? { rawBody: builtBody.rawBody } : builtBody.body !== undefined ? { body: builtBody.body } : {}),
        })),
      );
    }
  }
  return fc.oneof(...operations);
}
