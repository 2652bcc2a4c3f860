/**
 * A field of a read shape: the SQL expression that yields it, alone when pg already returns the
 * record's value (text, int, boolean, timestamptz as Date, jsonb), or with the converter the raw
 * value needs (a bigint's string to Cents, ...). Converters are passed in: #database imports no
 * domain or money code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a converter takes pg's raw value, whose type SQL alone decides
export type ReadColumn<T> = string | readonly [sql: string, convert: (raw: any) => T];

/** A record type's fields, each with the column it is read from. */
export type ReadColumns<R> = { readonly [K in keyof R]-?: ReadColumn<R[K]> };

export interface ReadShape<R> {
  /** The SELECT (or RETURNING) list: each expression aliased to its field, `vendor_id AS "vendorId"`. */
  readonly columns: string;
  /** A row selected with `columns` (and maybe more) as its record: exactly the shape's fields, converted where a converter is given. */
  readonly read: (row: object) => R;
  /** The first row's record, or null when there is none. */
  readonly first: (rows: readonly object[]) => R | null;
}

/**
 * One definition per read shape (docs/ARCHITECTURE.md, One definition per table): the record's
 * fields and their columns, instead of a column list, a snake_case row type and a mapping that
 * renames each field. Keyed by the record type, so a field added to the record without a column
 * does not compile.
 */
export function readShape<R>(fields: ReadColumns<R>): ReadShape<R> {
  const entries = Object.entries(fields) as Array<[string, ReadColumn<unknown>]>;
  const read = (row: object): R => {
    const raw = row as Record<string, unknown>;
    const record: Record<string, unknown> = {};
    for (const [field, column] of entries) record[field] = typeof column === 'string' ? raw[field] : column[1](raw[field]);
    return record as R;
  };
  return {
    columns: entries.map(([field, column]) => `${typeof column === 'string' ? column : column[0]} AS "${field}"`).join(', '),
    read,
    first: (rows) => (rows.length > 0 ? read(rows[0]) : null),
  };
}
