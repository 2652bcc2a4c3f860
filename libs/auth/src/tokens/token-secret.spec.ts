import { generateTokenSecret, hashTokenSecret, parseLifetime, TOKEN_PATTERN } from './token-secret.js';

describe('token secrets', () => {
  it('are random, well formed and hashed to 64 hex characters', () => {
    const first = generateTokenSecret();
    const second = generateTokenSecret();
    expect(first).toMatch(TOKEN_PATTERN);
    expect(first).not.toEqual(second);
    expect(hashTokenSecret(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenSecret(first)).not.toEqual(hashTokenSecret(second));
  });

  it('parses lifetimes and rejects nonsense', () => {
    expect(parseLifetime('30d')).toBe(30 * 86_400);
    expect(parseLifetime('90m')).toBe(5400);
    expect(() => parseLifetime('0d')).toThrow();
    expect(() => parseLifetime('30 days')).toThrow();
  });
});
