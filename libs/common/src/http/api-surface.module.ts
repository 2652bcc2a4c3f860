import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { ErrorCatalogue } from '../errors/error-catalogue.js';
import { ApiExceptionFilter } from './api-exception.filter.js';
import { ENVELOPE_STYLE, ERROR_CATALOGUE, type EnvelopeStyle } from './envelope-style.js';
import { EnvelopeInterceptor } from './envelope.interceptor.js';
import { createValidationPipe } from './validation.js';

/** Installs a service's envelope, error mapping and validation on every route. */
@Module({})
export class ApiSurfaceModule {
  static forRoot(style: EnvelopeStyle, catalogue: ErrorCatalogue): DynamicModule {
    return {
      module: ApiSurfaceModule,
      providers: [
        { provide: ENVELOPE_STYLE, useValue: style },
        { provide: ERROR_CATALOGUE, useValue: catalogue },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
