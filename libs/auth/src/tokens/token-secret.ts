import { createHash, randomBytes } from 'node:crypto';

/** Environment a token was issued in, visible in its prefix so a test token is never mistaken for a live one. */
export type TokenMode = 'test' | 'live';

/**
 * `gwt_test_` / `gwt_live_` + 43 base64url characters (32 random bytes). Tokens issued before the
 * mode prefix (`gwt_` + 43) stay valid: lookup is by hash, the prefix only has to be well formed.
 */
export const TOKEN_PATTERN = /^gwt_(?:(?:test|live)_)?[A-Za-z0-9_-]{43}$/;

/** The mode of an app environment: only production issues live tokens. */
export function tokenModeOf(appEnv: string): TokenMode {
  return appEnv === 'production' ? 'live' : 'test';
}

export function generateTokenSecret(mode: TokenMode): string {
  return `gwt_${mode}_${randomBytes(32).toString('base64url')}`;
}

export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Parses "30d", "12h", "90m", "3600s" into seconds. */
export function parseLifetime(text: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(text);
  if (!match) throw new Error(`Invalid lifetime "${text}": use a number followed by s, m, h or d (e.g. 30d)`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  if (seconds <= 0) throw new Error('Lifetime must be positive');
  return seconds;
}
