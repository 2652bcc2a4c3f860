import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, signatureHeader } from '../../../libs/webhooks/src/webhook-signature.js';
import { constructEvent, DEFAULT_WEBHOOK_TOLERANCE_SECONDS, generateWebhookSignatureHeader, WEBHOOK_HEADERS, WebhookSignatureError } from './webhooks.js';

/** Deliveries signed exactly as the gateways sign them (libs/webhooks), verified by the SDK. */
const delivery = (type = 'payout.paid') => JSON.stringify({ id: 'evt-1', type, created_at: '2026-11-24T08:00:00.000Z', data: { reference: 'p-1', status: 'paid', delivery: null } });
const reason = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return error instanceof WebhookSignatureError ? error.reason : String(error);
  }
};

describe('constructEvent', () => {
  const now = 1_800_000_000_000;
  const t = now / 1000;

  it('uses the gateways header name and tolerance', () => {
    expect(WEBHOOK_HEADERS.signature).toBe(SIGNATURE_HEADER.toLowerCase());
    expect(DEFAULT_WEBHOOK_TOLERANCE_SECONDS).toBe(DEFAULT_TOLERANCE_SECONDS);
  });

  it('accepts a delivery signed by the gateway signer, with a Buffer body too, and returns the typed event', () => {
    const body = delivery();
    const event = constructEvent(body, signatureHeader(['whsec_a'], t, body), 'whsec_a', { now });
    expect(event).toMatchObject({ id: 'evt-1', type: 'payout.paid', data: { reference: 'p-1' } });
    expect(constructEvent(Buffer.from(body), signatureHeader(['whsec_a'], t, body), 'whsec_a', { now }).id).toBe('evt-1');
    expect(generateWebhookSignatureHeader(body, 'whsec_a', t)).toBe(signatureHeader(['whsec_a'], t, body));
  });

  it('accepts either secret during a rotation (two v1 values), and the old secret alone', () => {
    const body = delivery();
    const header = signatureHeader(['whsec_new', 'whsec_old'], t, body);
    expect(constructEvent(body, header, 'whsec_old', { now }).id).toBe('evt-1');
    expect(constructEvent(body, signatureHeader(['whsec_old'], t, body), ['whsec_new', 'whsec_old'], { now }).id).toBe('evt-1');
  });

  it('refuses a tampered body, another secret, old or future timestamps and malformed headers', () => {
    const body = delivery();
    const header = signatureHeader(['whsec_a'], t, body);
    expect(reason(() => constructEvent(body.replace('paid', 'failed'), header, 'whsec_a', { now }))).toBe('no_matching_signature');
    expect(reason(() => constructEvent(body, header, 'whsec_b', { now }))).toBe('no_matching_signature');
    expect(reason(() => constructEvent(body, header, 'whsec_a', { now: now + 301_000 }))).toBe('timestamp_outside_tolerance');
    expect(reason(() => constructEvent(body, header, 'whsec_a', { now: now - 301_000 }))).toBe('timestamp_outside_tolerance');
    expect(reason(() => constructEvent(body, header, 'whsec_a', { now: now + 299_000 }))).toBe('accepted');
    expect(reason(() => constructEvent(body, header, 'whsec_a', { now: now + 1_000_000, toleranceSeconds: 2_000 }))).toBe('accepted');
    expect(reason(() => constructEvent(body, undefined, 'whsec_a', { now }))).toBe('missing_header');
    expect(reason(() => constructEvent(body, `t=${t}`, 'whsec_a', { now }))).toBe('malformed_header');
    expect(reason(() => constructEvent(body, header.replace(`t=${t}`, 't=abc'), 'whsec_a', { now }))).toBe('malformed_header');
    const notJson = 'not json';
    expect(reason(() => constructEvent(notJson, signatureHeader(['whsec_a'], t, notJson), 'whsec_a', { now }))).toBe('invalid_payload');
  });
});
