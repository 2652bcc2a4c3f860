import { generateSecret, generateURI, verify } from 'otplib';

/** One 30-second step either side, for clocks a little off. */
const TOLERANCE_SECONDS = 30;

export function totpContext(userId: string): string {
  return `dashboard-totp:${userId}`;
}

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: 'Vendor dashboard', label: email, secret });
}

export async function totpMatches(secret: string, code: unknown): Promise<boolean> {
  const digits = typeof code === 'string' ? code.replace(/\s/g, '') : '';
  if (!/^\d{6}$/.test(digits)) return false;
  try {
    return (await verify({ secret, token: digits, epochTolerance: TOLERANCE_SECONDS })).valid;
  } catch {
    return false;
  }
}
