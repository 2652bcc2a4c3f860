import { Writable } from 'node:stream';
import { pino } from 'pino';
import { REDACTED_PATHS, redactUrl } from './logging.js';

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
