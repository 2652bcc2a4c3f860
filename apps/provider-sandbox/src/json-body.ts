import { badRequest } from './sandbox-errors.js';

/**
 * Reads fields out of a parsed JSON request body, answering 400 with the field name when a
 * field is missing or has the wrong type. The sandbox reads bodies by hand (no DTO classes)
 * because it must also see fields a real provider would refuse, such as identity fields sent
 * to the voucher API.
 */
export class JsonBody {
  private constructor(private readonly fields: Record<string, unknown>) {}

  static of(raw: unknown): JsonBody {
    if (!isPlainObject(raw)) throw badRequest('INVALID_BODY', 'request body must be a JSON object');
    return new JsonBody(raw);
  }

  keys(): string[] {
    return Object.keys(this.fields);
  }

  has(field: string): boolean {
    return this.fields[field] !== undefined && this.fields[field] !== null;
  }

  requiredString(field: string, pattern?: RegExp): string {
    const value = this.optionalString(field, pattern);
    if (value === undefined) throw badRequest('MISSING_FIELD', `${field} is required`);
    return value;
  }

  optionalString(field: string, pattern?: RegExp): string | undefined {
    const value = this.fields[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.length === 0) throw badRequest('INVALID_FIELD', `${field} must be a non-empty string`);
    if (pattern && !pattern.test(value)) throw badRequest('INVALID_FIELD', `${field} has an invalid format`);
    return value;
  }

  requiredInteger(field: string): number {
    const value = this.fields[field];
    if (value === undefined || value === null) throw badRequest('MISSING_FIELD', `${field} is required`);
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw badRequest('INVALID_FIELD', `${field} must be an integer`);
    return value;
  }

  requiredObject(field: string): JsonBody {
    const value = this.optionalObject(field);
    if (value === undefined) throw badRequest('MISSING_FIELD', `${field} is required`);
    return value;
  }

  optionalObject(field: string): JsonBody | undefined {
    const value = this.fields[field];
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) throw badRequest('INVALID_FIELD', `${field} must be an object`);
    return new JsonBody(value);
  }

  /** An identifier group such as `credit_party_identifier`: a flat object of strings. */
  optionalStringRecord(field: string): Record<string, string> | undefined {
    const value = this.optionalObject(field);
    if (value === undefined) return undefined;
    const record: Record<string, string> = {};
    for (const key of value.keys()) record[key] = value.requiredString(key);
    return record;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
