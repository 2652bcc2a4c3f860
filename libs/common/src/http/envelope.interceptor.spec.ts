import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { lastValueFrom, of } from 'rxjs';
import { COMMON_ERRORS } from '../errors/error-catalogue.js';
import type { ApiEnvelopeFormat } from './api-envelope.js';
import { CachedResult } from './cached-result.js';
import { EnvelopeInterceptor } from './envelope.interceptor.js';
import { SKIP_ENVELOPE } from './skip-envelope.decorator.js';

/** An envelope in the purchase contract's shape that counts the success bodies it builds. */
function envelope(): ApiEnvelopeFormat & { built: number } {
  const format = {
    built: 0,
    catalogue: COMMON_ERRORS,
    rateLimitCode: 'SERVICE_UNAVAILABLE',
    success: (data: unknown) => {
      format.built++;
      return { success: true, message: 'OK', data };
    },
    error: () => ({}),
    openApi: { errorModel: Object, successMembers: {}, errorCodesSchema: () => ({}), exampleFieldErrors: {}, describeErrors: () => '' },
  };
  return format;
}

/** One request through the interceptor: what it hands the adapter, and the headers it set. */
async function answer(interceptor: EnvelopeInterceptor, result: unknown, headers: Record<string, string> = {}) {
  const response = {
    headers: { ...headers } as Record<string, string>,
    getHeader(name: string) {
      return this.headers[name.toLowerCase()];
    },
    setHeader(name: string, value: string) {
      this.headers[name.toLowerCase()] = value;
    },
  };
  const handler = () => undefined;
  const context = { getHandler: () => handler, getClass: () => Object, switchToHttp: () => ({ getResponse: () => response }) } as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of(result) };
  const body = await lastValueFrom(interceptor.intercept(context, next));
  return { body, headers: response.headers };
}

const PAGE = { items: [{ id: 10101, name: 'Vodacom ZA Airtime 10.00 ZAR', price: { charge_minor: 1050 } }], total: 1 };

describe('EnvelopeInterceptor', () => {
  it('wraps a plain result in the success envelope, as an object for res.json', async () => {
    const format = envelope();
    const { body, headers } = await answer(new EnvelopeInterceptor(format, new Reflector()), PAGE);
    expect(body).toEqual({ success: true, message: 'OK', data: PAGE });
    expect(headers).toEqual({});
  });

  it('sends a CachedResult as the JSON text of its envelope, built once for every request it answers', async () => {
    const format = envelope();
    const interceptor = new EnvelopeInterceptor(format, new Reflector());
    const cached = new CachedResult(PAGE);

    const first = await answer(interceptor, cached);
    const second = await answer(interceptor, cached);

    expect(first.body).toBe(JSON.stringify({ success: true, message: 'OK', data: PAGE }));
    expect(second.body).toBe(first.body);
    expect(format.built).toBe(1);
    // What res.json would set; res.send adds the charset to either.
    expect(first.headers).toEqual({ 'content-type': 'application/json' });
    expect(second.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('leaves a Content-Type set before it in place, as res.json does', async () => {
    const { headers } = await answer(new EnvelopeInterceptor(envelope(), new Reflector()), new CachedResult(PAGE), { 'content-type': 'application/problem+json' });
    expect(headers['content-type']).toBe('application/problem+json');
  });

  it('serialises a CachedResult afresh in another service’s envelope', async () => {
    const cached = new CachedResult(PAGE);
    await answer(new EnvelopeInterceptor(envelope(), new Reflector()), cached);
    const other = { ...envelope(), success: (data: unknown) => ({ success: true, data }) };
    const { body } = await answer(new EnvelopeInterceptor(other, new Reflector()), cached);
    expect(body).toBe(JSON.stringify({ success: true, data: PAGE }));
  });

  it('keeps null data as null, as for a plain result', async () => {
    const { body } = await answer(new EnvelopeInterceptor(envelope(), new Reflector()), new CachedResult(null));
    expect(body).toBe('{"success":true,"message":"OK","data":null}');
  });

  it('hands the bare data of a CachedResult to a route without the envelope', async () => {
    const reflector = { getAllAndOverride: (key: string) => key === SKIP_ENVELOPE } as unknown as Reflector;
    const format = envelope();
    const { body } = await answer(new EnvelopeInterceptor(format, reflector), new CachedResult(PAGE));
    expect(body).toBe(PAGE);
    expect(format.built).toBe(0);
  });
});
