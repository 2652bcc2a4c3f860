import { Logger, type ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { COMMON_ERRORS } from '../errors/error-catalogue.js';
import { ApiExceptionFilter } from './api-exception.filter.js';
import type { ApiEnvelopeFormat } from './api-envelope.js';

/** An envelope in the payout contract's shape, over the shared codes only. */
const ENVELOPE: ApiEnvelopeFormat<'SERVICE_UNAVAILABLE'> = {
  catalogue: COMMON_ERRORS,
  rateLimitCode: 'SERVICE_UNAVAILABLE',
  success: (data) => ({ success: true, data }),
  error: ({ code, message, details, fieldErrors, requestId }) => ({ success: false, code, message, errors: fieldErrors, ...details, ...(requestId ? { request_id: requestId } : {}) }),
  openApi: { errorModel: Object, successMembers: {}, errorCodesSchema: () => ({}), exampleFieldErrors: {}, describeErrors: () => '' },
};

/** What the filter answered: status, headers and body. */
function answer(exception: unknown) {
  const sent = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => (sent.headers[name.toLowerCase()] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
  };
  const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'req-1' }) }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter(ENVELOPE).catch(exception, host);
  return sent;
}

/** A TypeORM query error carrying the pg driver's error, as thrown by DataSource.query. */
function queryFailed(code: string, message = 'driver error', detail?: string): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code, detail }));
}

describe('ApiExceptionFilter: infrastructure and unstorable text', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a connection reset mid-query', queryFailed('ECONNRESET', 'read ECONNRESET')],
    ['a lost connection (pg message only)', new Error('Connection terminated unexpectedly')],
    ['a pool that could not hand out a connection', new Error('timeout exceeded when trying to connect')],
    ['a server shutting down', queryFailed('57P01', 'terminating connection due to administrator command')],
    ['a connection exception (class 08)', queryFailed('08006')],
    ['too many connections', queryFailed('53300')],
  ])('answers %s with 503 SERVICE_UNAVAILABLE and Retry-After', (_label, exception) => {
    const sent = answer(exception);
    expect(sent.status).toBe(503);
    expect(sent.headers['retry-after']).toBe('1');
    expect(sent.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', request_id: 'req-1' });
  });

  it.each([
    ['a NUL character in text', queryFailed('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['a NUL escape in JSON', queryFailed('22P05', 'unsupported Unicode escape sequence')],
    ['an unpaired surrogate in JSON', queryFailed('22P02', 'invalid input syntax for type json', 'Unicode low surrogate must follow a high surrogate.')],
  ])('answers %s with 422 VALIDATION_FAILED', (_label, exception) => {
    const sent = answer(exception);
    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', errors: { request: [expect.any(String)] } });
  });

  it.each([
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['any other invalid text representation', queryFailed('22P02', 'invalid input syntax for type uuid: "x"')],
    ['a unique violation nobody translated', queryFailed('23505', 'duplicate key value violates unique constraint')],
  ])('still answers %s with 500: a bug must stay visible', (_label, exception) => {
    expect(answer(exception).status).toBe(500);
  });
});
