import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ProviderHttpError,
  ProviderNotConfiguredError,
  ProviderRejectedError,
  ProviderTimeoutError,
} from '../provider-errors.js';
import { ProviderHttpTransport } from './provider-http-transport.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

describe('ProviderHttpTransport', () => {
  let server: Server;
  let baseUrl: string;
  let handler: Handler;
  let hits: Array<{ method: string; apiKey: string | undefined }>;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push({ method: request.method ?? '', apiKey: request.headers['x-api-key'] as string | undefined });
      handler(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    hits = [];
  });

  const transport = (overrides: { timeoutMs?: number; readRetries?: number } = {}) =>
    new ProviderHttpTransport('test provider', {
      baseUrl,
      apiKey: 'k-123-secret',
      production: true,
      timeoutMs: overrides.timeoutMs ?? 1_000,
      readRetries: overrides.readRetries ?? 2,
      readRetryBackoffMs: 1,
    });

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

  it('retries a GET after 5xx answers and sends the API key', async () => {
    let calls = 0;
    handler = (request, response) => (++calls < 3 ? json(503, {})(request, response) : json(200, { ok: true })(request, response));
    const result = await transport().get<{ ok: boolean }>({ operation: 'read', path: '/thing' });
    expect(result.body).toEqual({ ok: true });
    expect(hits).toHaveLength(3);
    expect(hits.every((hit) => hit.apiKey === 'k-123-secret')).toBe(true);
  });

  it('gives up on a GET after the configured retries', async () => {
    handler = json(502, {});
    await expect(transport({ readRetries: 1 }).get({ operation: 'read', path: '/thing' })).rejects.toBeInstanceOf(ProviderHttpError);
    expect(hits).toHaveLength(2);
  });

  it('never retries a POST, and a 5xx leaves the outcome unknown', async () => {
    handler = json(500, { errors: [{ code: 'INTERNAL_ERROR', message: 'created nothing' }] });
    const error = await transport().post({ operation: 'create', path: '/things' }, { a: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', status: 500, outcomeUnknown: true });
    expect(hits).toHaveLength(1);
  });

  it('turns a slow answer into ProviderTimeoutError without retrying the POST', async () => {
    handler = (_request, response) => setTimeout(() => json(201, {})(_request, response), 400);
    const error = await transport({ timeoutMs: 100 })
      .post({ operation: 'create', path: '/things' }, {})
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', outcomeUnknown: true });
    expect(hits).toHaveLength(1);
  });

  it('reads the provider code and retry-after of a rejection, and keeps the key out of the message', async () => {
    handler = json(429, { errors: [{ code: 'SMS_RESEND_LIMITED', message: 'later' }], retry_after_seconds: 120 });
    const error = (await transport()
      .post({ operation: 'resend', path: '/x' }, {})
      .catch((caught: unknown) => caught)) as ProviderRejectedError;
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error).toMatchObject({ status: 429, providerCode: 'SMS_RESEND_LIMITED', retryAfterSeconds: 120, outcomeUnknown: false });
    expect(error.message).not.toContain('k-123-secret');
  });

  it('marks a 409 on create as outcome unknown: the provider already holds our id', async () => {
    handler = json(409, { errors: [{ code: 'EXTERNAL_ID_ALREADY_USED', message: 'exists' }] });
    const error = await transport().post({ operation: 'create', path: '/things' }, {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED', status: 409, outcomeUnknown: true });
  });

  it('answers null for a 404 only when asked to', async () => {
    handler = json(404, { errors: [{ code: 'NOT_FOUND', message: 'no' }] });
    await expect(transport().get({ operation: 'read', path: '/x', notFoundAsNull: true })).resolves.toBeNull();
    await expect(transport().get({ operation: 'read', path: '/x' })).rejects.toMatchObject({ status: 404 });
  });

  it('fails closed in production without a base URL or key, before any request', async () => {
    const unconfigured = new ProviderHttpTransport('test provider', { production: true, apiKey: 'k' });
    await expect(unconfigured.get({ operation: 'read', path: '/x' })).rejects.toBeInstanceOf(ProviderNotConfiguredError);
    await expect(unconfigured.post({ operation: 'create', path: '/x' }, {})).rejects.toMatchObject({
      code: 'PROVIDER_NOT_CONFIGURED',
    });
    expect(hits).toHaveLength(0);
  });
});
