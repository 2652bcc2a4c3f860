import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ApiExceptionFilter } from './api-exception.filter.js';
import { API_ENVELOPE, type ApiEnvelopeFormat } from './api-envelope.js';
import { EnvelopeInterceptor } from './envelope.interceptor.js';
import { createValidationPipe } from './validation.js';

/** Installs a service's envelope (defined by its app), error mapping and validation on every route. */
@Module({})
export class ApiSurfaceModule {
  static forRoot<C extends string>(envelope: ApiEnvelopeFormat<C>): DynamicModule {
    return {
      module: ApiSurfaceModule,
      providers: [
        { provide: API_ENVELOPE, useValue: envelope },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
