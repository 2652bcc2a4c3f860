import { generateSecret, generateURI, verify } from 'otplib';

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

/** A base32 secret as newTotpSecret makes it, posted back by an enrolment form. */
export function isTotpSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z2-7]{16,64}$/.test(value);
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
