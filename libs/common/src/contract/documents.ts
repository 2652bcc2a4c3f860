/**
 * Compile-time links between a type and another type that describes the same thing a second time
 * (an OpenAPI schema class and the view a service returns; a provider's wire type and the view a
 * domain keeps of it). The two are written separately because they serve different readers, so
 * nothing but these checks keeps them from drifting apart.
 */

/** Compiles only when `A` and `B` have exactly the same keys; otherwise the error names a key one of them lacks. */
export type AssertSameKeys<A extends Record<keyof B, unknown>, B extends Record<keyof A, unknown>> = true;

/** The keys whose value in `View` is not assignable to the field of the same name in `Schema`. */
type RetypedKeys<View, Schema> = { [K in keyof View & keyof Schema]: View[K] extends Schema[K] ? never : K }[keyof View & keyof Schema];

/**
 * What a schema class `implements` to document `View`: `class PayoutSchema implements Documents<PayoutView, PayoutSchema>`.
 * It compiles only when the schema has exactly the view's fields (a field the view gains, loses or
 * renames is a compile error at the class) and every view value fits the schema's field of the same
 * name (a retyped field is one too). A schema field may be wider than the view's (an enum of the
 * view documented as `string` with its `enum` list), never narrower or different.
 */
export type Documents<View, Schema> = [Exclude<keyof Schema, keyof View> | Exclude<keyof View, keyof Schema>] extends [never]
  ? [RetypedKeys<View, Schema>] extends [never]
    ? object
    : { 'view fields the schema types differently': RetypedKeys<View, Schema> }
  : { 'schema and view fields differ': { onlyInSchema: Exclude<keyof Schema, keyof View>; onlyInView: Exclude<keyof View, keyof Schema> } };

/**
 * The `Documents` check for a type that cannot `implements` (an interface): compiles only when
 * `Copy` has exactly the fields of `Source` and every `Source` value fits `Copy`'s field, e.g.
 * `type _Linked = AssertDocuments<ProviderStatementLookup, StatementLookupView>` for a view copied
 * field by field from a provider's answer.
 */
export type AssertDocuments<Source, Copy extends Documents<Source, Copy>> = true;
