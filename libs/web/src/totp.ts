import { generateSecret, generateURI, verify } from 'otplib';
import { toString as qrCodeSvg } from 'qrcode';
import { html, type SafeHtml } from './html.js';
import type { FieldEncryption } from '#common';

/** One 30-second step either side, for clocks a little off. */
const TOLERANCE_SECONDS = 30;

/**
 * The FieldEncryption context a TOTP secret is sealed under: the kind of account and its id, so a
 * sealed secret copied to another row (or from a vendor user to a staff user) does not open.
 */
export function totpContext(userId: string, kind: 'dashboard' | 'staff' = 'dashboard'): string {
  return `${kind}-totp:${userId}`;
}

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string, issuer = 'Vendor dashboard'): string {
  return generateURI({ issuer, label: email, secret });
}

/**
 * The enrolment link as a QR code for the authenticator app's camera: an SVG drawn here (qrcode),
 * sent as a data: image (the pages' CSP allows `img-src data:`), with the key itself beside it
 * for those who type it.
 */
export async function totpQrCode(uri: string): Promise<SafeHtml> {
  const svg = await qrCodeSvg(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return html`<img class="qr" id="totp-qr" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="200" height="200" alt="QR code to scan with your authenticator app">`;
}

/** How long an enrolment form's key stays good: long enough to find the phone, not a standing offer. */
export const TOTP_ENROLMENT_TTL_MS = 30 * 60_000;

/**
 * A key the server made, sealed (AES-GCM, FieldEncryption) for the enrolment form to carry back:
 * the browser can show it but not choose it, so no one can enrol a key of their own making (an
 * all-zero key, or one planted by a script). Bound to the account (`context`, see totpContext)
 * and dated, so it opens only for that account and only for TOTP_ENROLMENT_TTL_MS.
 */
export function sealTotpEnrolment(encryption: FieldEncryption, secret: string, context: string, now = Date.now()): string {
  return encryption.encryptJson({ secret, issuedAt: now }, `enrol:${context}`);
}

/** The key of a sealed enrolment, or null when it was not sealed by this server for this account, or is too old. */
export function openTotpEnrolment(encryption: FieldEncryption, sealed: unknown, context: string, now = Date.now()): string | null {
  if (typeof sealed !== 'string' || sealed.length > 1_000) return null;
  try {
    const { secret, issuedAt } = encryption.decryptJson<{ secret: unknown; issuedAt: unknown }>(sealed, `enrol:${context}`);
    if (typeof secret !== 'string' || !/^[A-Z2-7]{16,64}$/.test(secret) || typeof issuedAt !== 'number') return null;
    return now - issuedAt >= 0 && now - issuedAt <= TOTP_ENROLMENT_TTL_MS ? secret : null;
  } catch {
    return null;
  }
}

/**
 * The RFC 6238 time step the code belongs to, or null when it does not match. Steps up to
 * `afterStep` are refused: the caller records each accepted step, so a code works only once.
 */
export async function totpStep(secret: string, code: unknown, afterStep: number | null = null): Promise<number | null> {
  const digits = typeof code === 'string' ? code.replace(/\s/g, '') : '';
  if (!/^\d{6}$/.test(digits)) return null;
  try {
    const result = await verify({ secret, token: digits, epochTolerance: TOLERANCE_SECONDS, ...(afterStep === null ? {} : { afterTimeStep: afterStep }) });
    // The functional API's result type also covers HOTP; a TOTP match always carries its timeStep.
    return result.valid && 'timeStep' in result && typeof result.timeStep === 'number' ? result.timeStep : null;
  } catch {
    return null;
  }
}
