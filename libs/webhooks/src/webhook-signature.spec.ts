import { createHmac } from 'node:crypto';
import { signatureHeader, verifySignature } from './webhook-signature.js';

describe('webhook signature', () => {
  const body = '{"id":"e1","type":"payout.paid"}';
  const now = 1_764_000_000_000;
  const t = now / 1000;

  it('is HMAC-SHA256 over "<t>.<body>", one v1 per secret', () => {
    const header = signatureHeader(['whsec_a', 'whsec_b'], t, body);
    const expected = (secret: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(header).toBe(`t=${t},v1=${expected('whsec_a')},v1=${expected('whsec_b')}`);
  });

  it('verifies with either secret, refuses a changed body, a wrong secret and a stale timestamp', () => {
    const header = signatureHeader(['whsec_a', 'whsec_b'], t, body);
    expect(verifySignature(header, body, 'whsec_a', 300, now)).toBe(true);
    expect(verifySignature(header, body, 'whsec_b', 300, now)).toBe(true);
    expect(verifySignature(header, body.replace('paid', 'failed'), 'whsec_a', 300, now)).toBe(false);
    expect(verifySignature(header, body, 'whsec_c', 300, now)).toBe(false);
    expect(verifySignature(header, body, 'whsec_a', 300, now + 301_000)).toBe(false);
    expect(verifySignature('v1=abc', body, 'whsec_a', 300, now)).toBe(false);
  });
});
