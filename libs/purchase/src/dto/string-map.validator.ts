import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isCleanText } from '#common';

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const MAX_FIELDS = 20;
const MAX_VALUE_LENGTH = 256;

/** An object of string to string, as the contract types recipient groups: bounded in size, no nesting. */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `$property must be an object of at most ${MAX_FIELDS} string fields (names: letters, digits, _; values: 1 to ${MAX_VALUE_LENGTH} characters of plain text: no control, invisible formatting or unpaired surrogate characters, not only whitespace)`,
        ...options,
      },
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= MAX_FIELDS &&
            entries.every(([key, field]) => FIELD_NAME.test(key) && typeof field === 'string' && field.length >= 1 && field.length <= MAX_VALUE_LENGTH && isCleanText(field))
          );
        },
      },
    });
}

export const STRING_MAP_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
} as const;
