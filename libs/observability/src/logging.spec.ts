import { Writable } from 'node:stream';
import { pino } from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import { buildLoggerParams, REDACTED_PATHS, redactUrl } from './logging.js';

function captureLogs(): { logger: pino.Logger; lines: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) });
  return { logger: pino({ redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' } }, stream), lines: () => chunks.join('') };
}

describe('log redaction', () => {
  it('removes secrets at any depth', () => {
    const { logger, lines } = captureLogs();
    logger.info({ req: { headers: { authorization: 'Bearer gwt_secret' } }, delivery: { pin: '1234-5678', serial: 'SER-1' }, token: 'gwt_x' });
    logger.info({ result: { fulfilment: { activation_code: 'LPA:1$abc' } } });
    const output = lines();
    expect(output).not.toContain('gwt_secret');
    expect(output).not.toContain('1234-5678');
    expect(output).not.toContain('SER-1');
    expect(output).not.toContain('gwt_x');
    expect(output).not.toContain('LPA:1$abc');
    expect(output).toContain('[REDACTED]');
  });

  it('hides the callback token in URLs', () => {
    const token = 'a'.repeat(64);
    expect(redactUrl(`/api/v1/provider/callback/${token}?x=1`)).toBe('/api/v1/provider/callback/[REDACTED]?x=1');
    expect(redactUrl('/api/v1/transactions')).toBe('/api/v1/transactions');
  });

  it('hides credentials a client put in the query string', () => {
    expect(redactUrl(`/api/v1/limits?access_token=gwt_${'b'.repeat(43)}&page=2`)).toBe('/api/v1/limits?access_token=[REDACTED]&page=2');
    expect(redactUrl('/api/v1/account?page=1&TOKEN=abc')).toBe('/api/v1/account?page=1&TOKEN=[REDACTED]');
    expect(redactUrl('/api/v1/products?search=token')).toBe('/api/v1/products?search=token');
  });
});

describe("the gateways' logger (buildLoggerParams)", () => {
  const SECRET_KEYS = REDACTED_PATHS.filter((path) => !path.startsWith('*')).map((path) => path.replace(/^\["(.*)"\]$/, '$1'));

  /** The logger pino-http builds from the gateways' parameters, writing to memory. */
  function gatewayLogger(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
    const chunks: string[] = [];
    const stream = new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) });
    const { logger } = pinoHttp(buildLoggerParams('test', 'info').pinoHttp as Options, stream);
    return { logger, lines: () => chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) };
  }

  /** `key` at `depth` levels (1 = the top level); `viaArray`: the level above it is an array (its index counts as a level). */
  function nested(key: string, depth: number, viaArray: boolean): Record<string, unknown> {
    let value: unknown = { [key]: 'the-secret', keep: 'visible' };
    for (let level = depth - 1; level > 0; level--) value = viaArray && level === depth - 1 ? [value] : { [`level${level}`]: value };
    return value as Record<string, unknown>;
  }

  it('covers every key of REDACTED_PATHS', () => {
    expect(SECRET_KEYS).toHaveLength(REDACTED_PATHS.length / 4);
    expect(SECRET_KEYS).toEqual(expect.arrayContaining(['authorization', 'x-api-key', 'token', 'pin', 'activation_code', 'callbackUrl']));
  });

  it.each([1, 2, 3, 4])('censors every secret key %i level(s) deep, in objects and arrays, leaving the caller’s object intact', (depth) => {
    const { logger, lines } = gatewayLogger();
    for (const key of SECRET_KEYS) {
      for (const viaArray of depth > 2 ? [false, true] : [false]) {
        const line = nested(key, depth, viaArray);
        const before = JSON.stringify(line);
        logger.info(line, 'line');
        expect(JSON.stringify(line)).toBe(before);
      }
    }
    const output = lines();
    expect(output.length).toBe(SECRET_KEYS.length * (depth > 2 ? 2 : 1));
    const text = JSON.stringify(output);
    expect(text).not.toContain('the-secret');
    expect(text.split('"[REDACTED]"').length - 1).toBe(output.length);
    expect(text.split('"visible"').length - 1).toBe(output.length);
  });

  it('censors what pino redact with REDACTED_PATHS censors, line for line', () => {
    const samples: Array<Record<string, unknown>> = [
      { token: 'a', nested: { password: 'b', list: [{ pin: 'c', other: 1 }, 'plain'] }, amount: '10.00' },
      { a: { b: { c: { serial: 'd', kept: true } } }, headers: { 'x-api-key': 'e', cookie: 'f', accept: '*/*' } },
      { deep: { one: { two: { three: { secret: 'beyond four levels' } } } } },
      { list: [[{ apiKey: 'g' }]], callback_url: 'h', count: 3 },
    ];
    const { logger, lines } = gatewayLogger();
    const reference = captureLogs();
    for (const sample of samples) {
      logger.info(sample);
      reference.logger.info(sample);
    }
    const strip = ({ time: _time, pid: _pid, hostname: _hostname, service: _service, ...rest }: Record<string, unknown>) => rest;
    const expected = reference.lines().trim().split('\n').map((line) => strip(JSON.parse(line) as Record<string, unknown>));
    expect(lines().map(strip)).toEqual(expected);
  });

  it('censors error lines, their serialized errors and child loggers’ bindings', () => {
    const { logger, lines } = gatewayLogger();
    const error = Object.assign(new Error('provider refused'), { token: 'err-token', details: { response: { pin: 'err-pin' } } });
    logger.error({ err: error, request: { headers: { authorization: 'Bearer gwt_live_x' } } }, 'failed');
    logger.error(error);
    logger.child({ req: { id: 'r1', method: 'GET', url: '/api/v1/limits?access_token=query-token', headers: {} } }).warn({ webhook: [{ secret: 'whsec' }] }, 'bound');
    logger.child({ vendor: { apiKey: 'bound-key', name: 'Vendor A' } }).child({ amount: 12 }).info('nested child');
    const output = lines();
    expect(output.at(-1)).toMatchObject({ vendor: { apiKey: '[REDACTED]', name: 'Vendor A' }, amount: 12, msg: 'nested child' });
    const text = JSON.stringify(output);
    for (const secret of ['err-token', 'err-pin', 'gwt_live_x', 'query-token', 'whsec', 'bound-key']) expect(text).not.toContain(secret);
    expect(text).toContain('provider refused');
    expect(error.token).toBe('err-token');
  });
});
