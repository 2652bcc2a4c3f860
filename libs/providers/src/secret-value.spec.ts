import { inspect } from 'node:util';
import { SecretValue } from './secret-value.js';

describe('SecretValue', () => {
  const secret = new SecretValue({ pin: '1234567890123456', serial: 'SN000111222333' });
  const carrier = { outcome: 'completed', fulfilment: secret };

  it('gives the value only through reveal()', () => {
    expect(secret.reveal()).toEqual({ pin: '1234567890123456', serial: 'SN000111222333' });
  });

  it('keeps the value out of JSON, string conversion and util.inspect', () => {
    for (const printed of [JSON.stringify(carrier), String(secret), `${secret}`, inspect(carrier, { depth: 5 })]) {
      expect(printed).not.toContain('1234567890123456');
      expect(printed).not.toContain('SN000111222333');
      expect(printed).toContain('REDACTED');
    }
  });
});
