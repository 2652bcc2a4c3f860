import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { DomainError, ValidationFailedError } from '../errors/domain-error.js';
import type { ErrorCode } from '../errors/error-catalogue.js';

/**
 * What a class-validator constraint may carry in its `context`:
 * - `deferToDomain`: the domain checks the rule again with everything it knows, see onlyDeferredFailures;
 * - `code`: when this rule fails, the whole answer carries this code instead of VALIDATION_FAILED,
 *   with every field's messages as usual (AMOUNT_INCREMENT_INVALID, whatever else is wrong).
 */
export interface ConstraintContext {
  deferToDomain?: boolean;
  code?: ErrorCode;
}

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

/** The code a failed constraint asks the answer to carry (its context's `code`), if any. */
export function codeOfFailures(errors: ValidationError[]): ErrorCode | undefined {
  for (const error of errors) {
    for (const constraint of Object.keys(error.constraints ?? {})) {
      const code = (error.contexts?.[constraint] as ConstraintContext | undefined)?.code;
      if (code !== undefined) return code;
    }
    const nested = codeOfFailures(error.children ?? []);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** Carries the validated entity past the pipe when only deferred rules failed (see onlyDeferredFailures). */
class DeferredToDomain extends Error {
  constructor(readonly entity: unknown) {
    super('validation deferred to the domain');
  }
}

/**
 * Whitelisting pipe: unknown properties are rejected, types are transformed, errors are
 * VALIDATION_FAILED with every field's messages (or the code a failed rule names, see
 * ConstraintContext). When the only failures are rules deferred to
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
      const fields = flattenValidationErrors(errors);
      const code = codeOfFailures(errors);
      return code === undefined ? new ValidationFailedError(fields) : new DomainError(code, 'The request is invalid', {}, fields);
    },
  });
}
