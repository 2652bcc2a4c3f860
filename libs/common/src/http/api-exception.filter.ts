import { ArgumentsHost, Catch, HttpException, HttpStatus, Inject, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { COMMON_ERRORS, type ErrorCatalogue } from '../errors/error-catalogue.js';
import { ENVELOPE_STYLE, ERROR_CATALOGUE, type EnvelopeStyle } from './envelope-style.js';

interface NormalisedError {
  code: string;
  status: number;
  details: Record<string, unknown>;
  fieldErrors: Record<string, string[]>;
  retryAfterSeconds?: number;
}

/** Express body-parser error types, which reach the filter as plain errors with a `type`. */
const BODY_PARSER_ERRORS: Record<string, (error: { message?: string }) => NormalisedError> = {
  'entity.parse.failed': () => ({
    code: 'VALIDATION_FAILED',
    status: HttpStatus.UNPROCESSABLE_ENTITY,
    details: {},
    fieldErrors: { body: ['body is not valid JSON'] },
  }),
  'entity.too.large': () => ({ code: 'PAYLOAD_TOO_LARGE', status: HttpStatus.PAYLOAD_TOO_LARGE, details: {}, fieldErrors: {} }),
  'encoding.unsupported': () => ({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    details: {},
    fieldErrors: {},
  }),
  'charset.unsupported': () => ({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    details: {},
    fieldErrors: {},
  }),
};

const HTTP_STATUS_CODES: Partial<Record<number, string>> = {
  [HttpStatus.UNAUTHORIZED]: 'UNAUTHENTICATED',
  [HttpStatus.FORBIDDEN]: 'FORBIDDEN',
  [HttpStatus.NOT_FOUND]: 'NOT_FOUND',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'METHOD_NOT_ALLOWED',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'PAYLOAD_TOO_LARGE',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'UNSUPPORTED_MEDIA_TYPE',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
};

/**
 * The one place errors become HTTP answers. Domain errors map through the service's
 * catalogue; framework errors map to stable codes; anything else is a bug and becomes a
 * generic 500 carrying the request id, never a stack trace.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);
  private readonly catalogue: ErrorCatalogue;

  constructor(
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
    @Inject(ERROR_CATALOGUE) serviceCatalogue: ErrorCatalogue,
  ) {
    this.catalogue = { ...COMMON_ERRORS, ...serviceCatalogue };
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request & { id?: string }>();
    if (response.headersSent) return;

    const error = this.normalise(exception, request);
    if (error.retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
    if (error.status === HttpStatus.UNAUTHORIZED) response.setHeader('WWW-Authenticate', 'Bearer');
    response.status(error.status).json(this.body(error, request.id));
  }

  private normalise(exception: unknown, request: Request & { id?: string }): NormalisedError {
    if (exception instanceof DomainError) {
      const entry = this.catalogue[exception.code];
      if (!entry) {
        this.logger.error({ err: exception, requestId: request.id }, `Domain error code ${exception.code} has no catalogue entry`);
        return this.internal();
      }
      return {
        code: exception.code,
        status: entry.status,
        details: exception.details,
        fieldErrors: exception.fieldErrors,
        retryAfterSeconds: exception.retryAfterSeconds,
      };
    }
    const parserType = (exception as { type?: unknown } | null)?.type;
    if (typeof parserType === 'string' && BODY_PARSER_ERRORS[parserType]) {
      return BODY_PARSER_ERRORS[parserType](exception as { message?: string });
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = HTTP_STATUS_CODES[status];
      if (code) return { code, status, details: {}, fieldErrors: {} };
      if (status === HttpStatus.BAD_REQUEST) {
        return { code: 'VALIDATION_FAILED', status: HttpStatus.UNPROCESSABLE_ENTITY, details: {}, fieldErrors: { request: [exception.message] } };
      }
    }
    this.logger.error({ err: exception, requestId: request.id, path: request.route?.path }, 'Unhandled error');
    return this.internal();
  }

  private internal(): NormalisedError {
    return { code: 'INTERNAL_ERROR', status: HttpStatus.INTERNAL_SERVER_ERROR, details: {}, fieldErrors: {} };
  }

  private body(error: NormalisedError, requestId: string | undefined): Record<string, unknown> {
    // The correlation id lets support find the log line of an unexpected failure.
    const correlation = error.status >= 500 && requestId ? { request_id: requestId } : {};
    if (this.style === 'purchase') {
      const fields = Object.keys(error.fieldErrors).length > 0 ? { fields: error.fieldErrors } : {};
      return { success: false, message: error.code, error: { code: error.code, ...error.details, ...fields, ...correlation } };
    }
    const message = this.catalogue[error.code]?.message ?? COMMON_ERRORS.INTERNAL_ERROR.message;
    return { success: false, code: error.code, message, errors: error.fieldErrors, ...error.details, ...correlation };
  }
}
