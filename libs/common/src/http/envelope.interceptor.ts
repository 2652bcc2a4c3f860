import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { API_ENVELOPE, type ApiEnvelopeFormat } from './api-envelope.js';
import { CachedResult } from './cached-result.js';
import { SKIP_ENVELOPE } from './skip-envelope.decorator.js';

/**
 * Wraps every controller result in the service's success envelope; controllers return bare data.
 * A CachedResult goes out as the JSON text it keeps (serialised once per cache entry).
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    @Inject(API_ENVELOPE) private readonly envelope: ApiEnvelopeFormat,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_ENVELOPE, [context.getHandler(), context.getClass()]);
    if (skip) return next.handle().pipe(map((data: unknown) => (data instanceof CachedResult ? data.data : data)));
    return next.handle().pipe(map((data: unknown) => (data instanceof CachedResult ? this.serialised(context, data) : this.envelope.success(data ?? null))));
  }

  /**
   * The adapter sends a string with `res.send` as it is, where an object goes through `res.json`:
   * so the Content-Type is the one `res.json` sets (when nothing else has), and `res.send` adds
   * the charset as it does for `res.json`. Status, Content-Length and every other header come
   * from the same code as any other answer.
   */
  private serialised(context: ExecutionContext, result: CachedResult<unknown>): string {
    const response = context.switchToHttp().getResponse<ServerResponse>();
    if (!response.getHeader('Content-Type')) response.setHeader('Content-Type', 'application/json');
    return result.successBody(this.envelope);
  }
}
