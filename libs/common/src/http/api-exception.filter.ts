import { ArgumentsHost, Catch, HttpException, HttpStatus, Inject, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import type { CommonErrorCode } from '../errors/error-catalogue.js';
import { API_ENVELOPE, type ApiEnvelopeFormat } from './api-envelope.js';

interface NormalisedError<C extends string = CommonErrorCode> {
  code: C;
  status: number;
  /** Absent: none (an empty object in the answer). */
  details?: Record<string, unknown>;
  fieldErrors?: Record<string, string[]>;
  retryAfterSeconds?: number;
}

const unsupportedMediaType = (): NormalisedError => ({ code: 'UNSUPPORTED_MEDIA_TYPE', status: HttpStatus.UNSUPPORTED_MEDIA_TYPE });
const validationFailed = (field: string, message: string): NormalisedError => ({ code: 'VALIDATION_FAILED', status: HttpStatus.UNPROCESSABLE_ENTITY, fieldErrors: { [field]: [message] } });
const INTERNAL_ERROR: NormalisedError = { code: 'INTERNAL_ERROR', status: HttpStatus.INTERNAL_SERVER_ERROR };

/** Express body-parser error types, which reach the filter as plain errors with a `type`. */
const BODY_PARSER_ERRORS: Record<string, () => NormalisedError> = {
  'entity.parse.failed': () => validationFailed('body', 'body is not valid JSON'),
  'entity.too.large': () => ({ code: 'PAYLOAD_TOO_LARGE', status: HttpStatus.PAYLOAD_TOO_LARGE }),
  'encoding.unsupported': unsupportedMediaType,
  'charset.unsupported': unsupportedMediaType,
};

/**
 * PostgreSQL refused the request's text: U+0000 in text (22021) or JSON (22P05), or an unpaired
 * surrogate inside JSON (22P02 with a surrogate detail). Only client input produces these, so
 * they are a validation failure, not a bug.
 */
const UNSTORABLE_TEXT_SQLSTATES = new Set(['22021', '22P05']);

/** Socket-level failures reaching PostgreSQL (or anything else the request needed). */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away or refusing work: connection exceptions (08), shutdown, too many connections, statement timeout. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400', '57014']);
/** pg and pg-pool report lost or unobtainable connections as plain errors with these messages. */
const CONNECTION_LOST_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection is not established|Query read timeout/i;

/** The error itself, TypeORM's driverError and a cause: whichever carries the driver's code. */
function errorLayers(exception: unknown): Array<{ code?: unknown; message?: unknown; detail?: unknown }> {
  const layers: Array<{ code?: unknown; message?: unknown; detail?: unknown }> = [];
  let current = exception as { code?: unknown; message?: unknown; detail?: unknown; driverError?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    layers.push(current);
    current = (current.driverError ?? current.cause) as typeof current;
  }
  return layers;
}

function isUnstorableText(exception: unknown): boolean {
  return errorLayers(exception).some(
    (layer) =>
      typeof layer.code === 'string' &&
      (UNSTORABLE_TEXT_SQLSTATES.has(layer.code) || (layer.code === '22P02' && typeof layer.detail === 'string' && /surrogate/i.test(layer.detail))),
  );
}

/** The database is unreachable or dropped the connection mid-request: retryable, so 503 rather than 500. */
function isInfrastructureUnavailable(exception: unknown): boolean {
  return errorLayers(exception).some(({ code, message }) => {
    if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
    return typeof message === 'string' && CONNECTION_LOST_MESSAGE.test(message);
  });
}

const HTTP_STATUS_CODES: Partial<Record<number, CommonErrorCode>> = {
  [HttpStatus.UNAUTHORIZED]: 'UNAUTHENTICATED',
  [HttpStatus.FORBIDDEN]: 'FORBIDDEN',
  [HttpStatus.NOT_FOUND]: 'NOT_FOUND',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'METHOD_NOT_ALLOWED',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'PAYLOAD_TOO_LARGE',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'UNSUPPORTED_MEDIA_TYPE',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
};

/**
 * The one place errors become HTTP answers, in the service's envelope. Domain errors map through
 * the service's catalogue; framework errors map to stable codes; anything else is a bug and
 * becomes a generic 500 carrying the request id, never a stack trace.
 */
@Catch()
export class ApiExceptionFilter<C extends string = string> implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);

  constructor(@Inject(API_ENVELOPE) private readonly envelope: ApiEnvelopeFormat<C>) {}

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

  private normalise(exception: unknown, request: Request & { id?: string }): NormalisedError<C | CommonErrorCode> {
    if (exception instanceof DomainError) {
      const code: string = exception.code;
      // Every code compiles only with a catalogue entry, but of some service: another service's
      // code (or an internal one a caller forgot to translate) is a bug here.
      if (!this.answers(code)) {
        this.logger.error({ err: exception, requestId: request.id }, `Domain error code ${code} has no catalogue entry`);
        return INTERNAL_ERROR;
      }
      return {
        code,
        status: this.envelope.catalogue[code].status,
        details: exception.details,
        fieldErrors: exception.fieldErrors,
        retryAfterSeconds: exception.retryAfterSeconds,
      };
    }
    const parserType = (exception as { type?: unknown } | null)?.type;
    if (typeof parserType === 'string' && BODY_PARSER_ERRORS[parserType]) return BODY_PARSER_ERRORS[parserType]();
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = HTTP_STATUS_CODES[status];
      if (code) return { code, status };
      if (status === HttpStatus.BAD_REQUEST) return validationFailed('request', exception.message);
    }
    if (isUnstorableText(exception)) return validationFailed('request', 'text must not contain NUL characters or unpaired surrogates');
    if (isInfrastructureUnavailable(exception)) {
      this.logger.warn({ err: (exception as Error)?.message, requestId: request.id, path: request.route?.path }, 'Dependency unavailable; answered 503');
      return { code: 'SERVICE_UNAVAILABLE', status: HttpStatus.SERVICE_UNAVAILABLE, retryAfterSeconds: 1 };
    }
    this.logger.error({ err: exception, requestId: request.id, path: request.route?.path }, 'Unhandled error');
    return INTERNAL_ERROR;
  }

  /** Whether this service's catalogue has the code. */
  private answers(code: string): code is C | CommonErrorCode {
    return Object.hasOwn(this.envelope.catalogue, code);
  }

  private body(error: NormalisedError<C | CommonErrorCode>, requestId: string | undefined): unknown {
    return this.envelope.error({
      code: error.code,
      message: this.envelope.catalogue[error.code].message,
      details: error.details ?? {},
      fieldErrors: error.fieldErrors ?? {},
      // The correlation id lets support find the log line of an unexpected failure.
      requestId: error.status >= 500 && requestId ? requestId : undefined,
    });
  }
}
