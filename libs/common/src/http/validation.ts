import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';

/** Turns class-validator's tree into `{"recipient.id_number": ["..."], "payouts.3.amount": [...]}`. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0) fields[path] = [...(fields[path] ?? []), ...messages];
    Object.assign(fields, flattenValidationErrors(error.children ?? [], path));
  }
  return fields;
}

/** Whitelisting pipe: unknown properties are rejected, types are transformed, errors are VALIDATION_FAILED. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(flattenValidationErrors(errors)),
  });
}
