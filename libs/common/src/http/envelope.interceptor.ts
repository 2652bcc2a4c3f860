import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { API_ENVELOPE, type ApiEnvelopeFormat } from './api-envelope.js';
import { SKIP_ENVELOPE } from './skip-envelope.decorator.js';

/** Wraps every controller result in the service's success envelope; controllers return bare data. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    @Inject(API_ENVELOPE) private readonly envelope: ApiEnvelopeFormat,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_ENVELOPE, [context.getHandler(), context.getClass()]);
    if (skip) return next.handle();
    return next.handle().pipe(map((data: unknown) => this.envelope.success(data ?? null)));
  }
}
