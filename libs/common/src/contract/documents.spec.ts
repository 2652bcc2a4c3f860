import type { AssertSameKeys, Documents } from './documents.js';

/*
 * Type tests: `tsc` (npm run typecheck, and lint's typed rules) is what runs them. Each
 * `@ts-expect-error` line must fail to compile; if a change to the checks let it compile, tsc
 * reports the directive as unused and the typecheck fails.
 */

type Status = 'pending' | 'paid';
interface DeliveryView {
  pin: string | null;
}
interface PayoutView {
  id: string;
  status: Status;
  amount: string;
  delivery: DeliveryView | null;
}

class DeliverySchema {
  pin: string | null;
}

/** Documents the view exactly, with the status enum widened to `string` as the decorators document it. */
export class PayoutSchema implements Documents<PayoutView, PayoutSchema> {
  id: string;
  status: string;
  amount: string;
  delivery: DeliverySchema | null;
}

// @ts-expect-error the view gained `fee`, the schema lacks it
export class SchemaMissingAField implements Documents<PayoutView & { fee: string }, SchemaMissingAField> {
  id: string;
  status: string;
  amount: string;
  delivery: DeliverySchema | null;
}

// @ts-expect-error the schema documents `fee`, which the view does not return
export class SchemaWithAnExtraField implements Documents<PayoutView, SchemaWithAnExtraField> {
  id: string;
  status: string;
  amount: string;
  delivery: DeliverySchema | null;
  fee: string;
}

// @ts-expect-error the schema documents `amount` as a number, the view returns a string
export class SchemaRetypingAField implements Documents<PayoutView, SchemaRetypingAField> {
  id: string;
  status: string;
  amount: number;
  delivery: DeliverySchema | null;
}

// @ts-expect-error the schema narrows the view: `delivery` may be null
export class SchemaDroppingNull implements Documents<PayoutView, SchemaDroppingNull> {
  id: string;
  status: string;
  amount: string;
  delivery: DeliverySchema;
}

// @ts-expect-error a nested schema drifts too: the delivery view's `pin` is text
export class SchemaWithADriftedNestedSchema implements Documents<PayoutView, SchemaWithADriftedNestedSchema> {
  id: string;
  status: string;
  amount: string;
  delivery: { pin: number } | null;
}

export type SameKeysCompile = AssertSameKeys<PayoutView, PayoutSchema>;
// @ts-expect-error the second lacks `delivery`
export type SecondLacksAKey = AssertSameKeys<PayoutView, Omit<PayoutSchema, 'delivery'>>;
// @ts-expect-error the first lacks `delivery`
export type FirstLacksAKey = AssertSameKeys<Omit<PayoutView, 'delivery'>, PayoutSchema>;

describe('Documents and AssertSameKeys (type tests, checked by tsc)', () => {
  it('compile for a schema that documents its view, and the drifts above do not (see the @ts-expect-error lines)', () => {
    const schema: Documents<PayoutView, PayoutSchema> = new PayoutSchema();
    expect(schema).toBeInstanceOf(PayoutSchema);
  });
});
