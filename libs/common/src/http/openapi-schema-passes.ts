/**
 * The generic passes over a generated OpenAPI document: the tree walk every rule uses, and the
 * rewrites that hold for every schema node (OpenAPI 3.1 nullability, integers).
 */

// The document is untyped JSON that the passes mutate in place.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/**
 * @nestjs/swagger writes OpenAPI 3.0 (`nullable: true`), whose `nullable` does not admit null
 * in an `enum` without null nor next to an `allOf: [$ref]`, so strict validators refused real
 * answers. The document is served as OpenAPI 3.1, where schemas are JSON Schema 2020-12 and null
 * is a type: `type: [T, 'null']` (with null in the enum) or `oneOf: [schema, {type: 'null'}]`.
 */
export function toOpenApi31(doc: Json): void {
  doc.openapi = '3.1.0';
  walk(doc, (node, path) => {
    if (node.nullable === undefined || path.some((key) => EXAMPLE_KEYS.has(key))) return;
    const nullable = node.nullable === true;
    delete node.nullable;
    if (!nullable) return;
    const reference = node.$ref ?? (Array.isArray(node.allOf) && node.allOf.length === 1 && Object.keys(node.allOf[0]).length === 1 ? node.allOf[0].$ref : undefined);
    if (reference) {
      delete node.$ref;
      delete node.allOf;
      // Nest adds `type: object` next to the reference, which would refuse null again.
      delete node.type;
      node.oneOf = [{ $ref: reference }, { type: 'null' }];
      return;
    }
    const alternatives = node.type === undefined ? (node.oneOf ?? node.anyOf) : undefined;
    if (Array.isArray(alternatives)) {
      if (!alternatives.some((alternative: Json) => alternative.type === 'null')) alternatives.push({ type: 'null' });
      return;
    }
    // A nullable member without a type is a free-form object.
    const types: string[] = node.type === undefined ? ['object'] : Array.isArray(node.type) ? node.type : [node.type];
    node.type = types.includes('null') ? types : [...types, 'null'];
    if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...node.enum, null];
  });
}

const EXAMPLE_KEYS = new Set(['example', 'examples']);


/**
 * No amount, id or count of this API is fractional (money is decimal strings or integer cents),
 * so `number` is `integer` everywhere, except inside a vendor's free-form `metadata`.
 */
export function integerNumbers(node: Json, path: string[]): void {
  if (node.type === 'number' && !path.includes('metadata')) node.type = 'integer';
}

export function walk(node: Json, visit: (node: Json, path: string[]) => void, path: string[] = []): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => walk(item, visit, [...path, String(index)]));
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  visit(node, path);
  for (const [key, value] of Object.entries(node)) walk(value, visit, [...path, key]);
}
