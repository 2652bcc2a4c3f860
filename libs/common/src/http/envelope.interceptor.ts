import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { ENVELOPE_STYLE, type EnvelopeStyle } from './envelope-style.js';
import { SKIP_ENVELOPE } from './skip-envelope.decorator.js';

/** Wraps every controller result in the service's success envelope; controllers return bare data. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_ENVELOPE, [context.getHandler(), context.getClass()]);
    if (skip) return next.handle();
    return next
      .handle()
      .pipe(map((data: unknown) => (this.style === 'purchase' ? { success: true, message: 'OK', data: data ?? null } : { success: true, data: data ?? null })));
  }
}
