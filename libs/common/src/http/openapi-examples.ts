import type { Json } from './openapi-schema-passes.js';

/**
 * An example from the schema: each property's own `example` (the DTOs carry sandbox values),
 * else its first enum value, else a typed placeholder. A request example holds only the
 * required members (an optional one, such as a cash payout's bank account, would mislead).
 * Operations that declare their own example keep it.
 */
export function exampleOf(doc: Json, schema: Json, mode: 'request' | 'response', depth = 0): Json {
  if (!schema || depth > 12) return null;
  if (schema.example !== undefined) return schema.example;
  // A nullable member of an answer is null unless it has its own example: a placeholder value
  // would contradict the status next to it (a pending purchase with an error code).
  if (mode === 'response' && schema.nullable && depth > 0) return null;
  if (schema.$ref) return exampleOf(doc, resolveRef(doc, schema.$ref), mode, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Json) => exampleOf(doc, part, mode, depth + 1)));
  if (schema.oneOf || schema.anyOf) return exampleOf(doc, (schema.oneOf ?? schema.anyOf)[0], mode, depth + 1);
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      if (!schema.properties) return schema.nullable ? null : {};
      const required: string[] | undefined = schema.required;
      const members = Object.entries(schema.properties as Record<string, Json>).filter(([name]) => mode === 'response' || !required || required.includes(name));
      return Object.fromEntries(members.map(([name, property]) => [name, exampleOf(doc, property, mode, depth + 1)]));
    }
    case 'array':
      return [exampleOf(doc, schema.items, mode, depth + 1)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.nullable) return null;
      if (schema.format === 'date-time') return '2026-11-24T08:00:00.000Z';
      if (schema.format === 'date') return '2026-11-24';
      if (schema.format === 'uuid') return '0b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40';
      return 'string';
    default:
      return null;
  }
}

function resolveRef(doc: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, part: string) => node?.[part], doc);
}
