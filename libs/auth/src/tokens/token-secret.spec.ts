import { generateTokenSecret, hashTokenSecret, parseLifetime, TOKEN_PATTERN, tokenModeOf } from './token-secret.js';

describe('token secrets', () => {
  it('are random, well formed and hashed to 64 hex characters', () => {
    const first = generateTokenSecret('test');
    const second = generateTokenSecret('test');
    expect(first).toMatch(TOKEN_PATTERN);
    expect(first).not.toEqual(second);
    expect(hashTokenSecret(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenSecret(first)).not.toEqual(hashTokenSecret(second));
  });

  it('tell test from live by prefix; only production issues live tokens', () => {
    expect(generateTokenSecret('test')).toMatch(/^gwt_test_[A-Za-z0-9_-]{43}$/);
    expect(generateTokenSecret('live')).toMatch(/^gwt_live_[A-Za-z0-9_-]{43}$/);
    expect(tokenModeOf('production')).toBe('live');
    expect(tokenModeOf('development')).toBe('test');
    expect(tokenModeOf('test')).toBe('test');
  });

  it('keep accepting tokens issued before the mode prefix, and nothing else', () => {
    expect(`gwt_${'A'.repeat(43)}`).toMatch(TOKEN_PATTERN);
    expect(`gwt_live_${'A'.repeat(43)}`).toMatch(TOKEN_PATTERN);
    expect(`gwt_prod_${'A'.repeat(43)}`).not.toMatch(TOKEN_PATTERN);
    expect(`gwt_test_${'A'.repeat(42)}`).not.toMatch(TOKEN_PATTERN);
  });

  it('parses lifetimes and rejects nonsense', () => {
    expect(parseLifetime('30d')).toBe(30 * 86_400);
    expect(parseLifetime('90m')).toBe(5400);
    expect(() => parseLifetime('0d')).toThrow();
    expect(() => parseLifetime('30 days')).toThrow();
  });
});
