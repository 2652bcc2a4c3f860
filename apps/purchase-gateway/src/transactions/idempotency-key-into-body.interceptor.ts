import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from '#common';

export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';

/**
 * Copies the `Idempotency-Key` header into the body before the validation pipe runs, so the key
 * and the body fields are validated in one pass: one 422 lists every problem (an invalid
 * reference no longer hides an invalid key). A JSON body that itself carries a field of that
 * name is refused (the key is a header), never silently replaced.
 */
@Injectable()
export class IdempotencyKeyIntoBody implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const body: unknown = request.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      if (Object.hasOwn(body, IDEMPOTENCY_KEY_FIELD)) {
        throw new ValidationFailedError({ [IDEMPOTENCY_KEY_FIELD]: ['Idempotency-Key must be sent as a header, not a body field'] });
      }
      (body as Record<string, unknown>)[IDEMPOTENCY_KEY_FIELD] = request.headers['idempotency-key'];
    }
    return next.handle();
  }
}
