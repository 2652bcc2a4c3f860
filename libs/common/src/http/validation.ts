import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
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

/**
 * True when every failed constraint is marked `{ context: { deferToDomain: true } }`: a rule the
 * domain checks again with everything it knows (the vendor's methods and limits), so it alone
 * decides whether that problem is reported by itself (with its own code) or with others. The
 * mark only matters when nothing else is wrong with the request's shape; otherwise the problem
 * is reported here, with the others, as VALIDATION_FAILED.
 */
export function onlyDeferredFailures(errors: ValidationError[]): boolean {
  let any = false;
  const walk = (list: ValidationError[]): boolean =>
    list.every((error) => {
      const constraints = Object.keys(error.constraints ?? {});
      any ||= constraints.length > 0;
      const deferred = constraints.every((constraint) => (error.contexts?.[constraint] as { deferToDomain?: unknown } | undefined)?.deferToDomain === true);
      return deferred && walk(error.children ?? []);
    });
  return walk(errors) && any;
}

/** Carries the validated entity past the pipe when only deferred rules failed (see onlyDeferredFailures). */
class DeferredToDomain extends Error {
  constructor(readonly entity: unknown) {
    super('validation deferred to the domain');
  }
}

/**
 * Whitelisting pipe: unknown properties are rejected, types are transformed, errors are
 * VALIDATION_FAILED with every field's messages. When the only failures are rules deferred to
 * the domain, the request passes on and the domain reports them.
 */
class GatewayValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof DeferredToDomain) return error.entity;
      throw error;
    }
  }
}

export function createValidationPipe(): ValidationPipe {
  return new GatewayValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    // The target stays on the errors so a deferred failure can hand the validated entity on; it is never sent.
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => {
      const root = errors[0]?.target;
      if (root !== undefined && onlyDeferredFailures(errors)) return new DeferredToDomain(root);
      return new ValidationFailedError(flattenValidationErrors(errors));
    },
  });
}
