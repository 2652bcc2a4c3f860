import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Gateway-Signature';
/** Receivers should refuse a signature older (or newer) than this; the docs' verification code uses it. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new endpoint secret: shown to the vendor once, stored encrypted. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** HMAC-SHA256 over `<t>.<raw body>`, hex. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** `t=<unix>,v1=<hex>[,v1=<hex>]`: one v1 per secret in force (two during a rotation's overlap). */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signPayload(secret, timestamp, body)}`)].join(',');
}

/**
 * The receiver's check, as documented in docs/INTEGRATION.md: true when any v1 matches the
 * secret (constant-time) and the timestamp is within the tolerance.
 */
export function verifySignature(header: string, body: string, secret: string, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now()): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body), 'hex');
  return parts
    .filter(([key, value]) => key === 'v1' && typeof value === 'string' && /^[0-9a-f]{64}$/.test(value))
    .some(([, value]) => timingSafeEqual(Buffer.from(value, 'hex'), expected));
}
