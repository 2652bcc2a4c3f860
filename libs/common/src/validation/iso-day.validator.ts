import { registerDecorator, type ValidationOptions } from 'class-validator';
import { parseIsoDay } from '../time/johannesburg-day.js';

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused). */
export function IsIsoDay(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isIsoDay',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a calendar date as YYYY-MM-DD', ...options },
      validator: {
        validate(value: unknown): boolean {
          try {
            parseIsoDay(value as string);
            return true;
          } catch {
            return false;
          }
        },
      },
    });
}
