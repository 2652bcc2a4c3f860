import { CONFIG_GROUPS, restrictConfig } from './config-groups.js';
import { ConfigValidationError, loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('gives working developer defaults', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/gateway');
    expect(config.DATABASE_POOL_SIZE).toBe(10);
    expect(config.CALLBACK_TOKEN).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads an on/off setting only from the words true and false', () => {
    expect(loadConfig({}).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'true' }).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow('DATABASE_PREPARED_STATEMENTS must be true or false');
  });

  it('never applies development secrets in production', () => {
    const config = loadConfig({ APP_ENV: 'production' });
    expect(config.CALLBACK_TOKEN).toBeUndefined();
    expect(config.ENCRYPTION_KEYS).toBeUndefined();
    expect(config.PURCHASE_PROVIDER_API_KEY).toBeUndefined();
  });

  it('fails fast with a readable message naming every bad variable', () => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'lots', CALLBACK_TOKEN: 'ABC' })).toThrow(ConfigValidationError);
    try {
      loadConfig({ DATABASE_POOL_SIZE: 'lots', CALLBACK_TOKEN: 'ABC', APP_ENV: 'staging' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('DATABASE_POOL_SIZE');
      expect(message).toContain('CALLBACK_TOKEN must be 64 lowercase hexadecimal characters');
      expect(message).toContain('APP_ENV');
    }
  });

  it('keeps idle connections longer than common proxies, and refuses a header timeout that does not exceed it', () => {
    const config = loadConfig({});
    expect(config.HTTP_KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
    expect(config.HTTP_HEADERS_TIMEOUT_MS).toBe(66_000);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '90000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS/);
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '90000', HTTP_HEADERS_TIMEOUT_MS: '91000' }).HTTP_KEEP_ALIVE_TIMEOUT_MS).toBe(90_000);
  });

  it('bounds payout holds: PAYOUT_HOLD_MAX_AGE_MS is a whole number of ms, above PAYOUT_REVIEW_AFTER_MS', () => {
    expect(loadConfig({}).PAYOUT_HOLD_MAX_AGE_MS).toBe(432_000_000);
    expect(loadConfig({ PAYOUT_HOLD_MAX_AGE_MS: '600000', PAYOUT_REVIEW_AFTER_MS: '60000' }).PAYOUT_HOLD_MAX_AGE_MS).toBe(600_000);
    expect(() => loadConfig({ PAYOUT_HOLD_MAX_AGE_MS: 'soon' })).toThrow(/PAYOUT_HOLD_MAX_AGE_MS/);
    expect(() => loadConfig({ PAYOUT_HOLD_MAX_AGE_MS: '60000', PAYOUT_REVIEW_AFTER_MS: '60000' })).toThrow(/PAYOUT_HOLD_MAX_AGE_MS: must be greater than PAYOUT_REVIEW_AFTER_MS/);
    // Not checked where the group is not declared.
    expect(() => loadConfig({ PAYOUT_HOLD_MAX_AGE_MS: '60000', PAYOUT_REVIEW_AFTER_MS: '60000' }, {}, ['database'])).not.toThrow();
  });

  it('accepts PostgreSQL URLs over TCP and over a Unix socket, and refuses anything else', () => {
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/gateway',
      'postgresql://app:secret@db.internal:6432/gateway?sslmode=verify-full',
      'postgres://postgres@%2Fvar%2Frun%2Fpostgresql/gateway',
      'postgres:///gateway?host=/cloudsql/project:region:instance',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
    for (const url of ['postgres://', 'http://db.internal/gateway', 'db.internal:5432', 'postgres:///gateway']) {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/DATABASE_URL/);
    }
  });

  it('rejects an active key id that is not among the keys', () => {
    expect(() => loadConfig({ ENCRYPTION_ACTIVE_KEY_ID: 'other' })).toThrow(/ENCRYPTION_ACTIVE_KEY_ID/);
  });
});

describe('config groups', () => {
  it('puts every setting in exactly one group', () => {
    const grouped = Object.values(CONFIG_GROUPS).flat();
    expect(new Set(grouped).size).toBe(grouped.length);
    const settings = Object.keys(loadConfig({})).concat('PORT', 'OPERATIONAL_PORT');
    expect([...grouped].sort()).toEqual([...new Set(settings)].sort());
  });

  it("validates only the declared groups: another deployable's bad setting does not stop this one", () => {
    const env = { CALLBACK_TOKEN: 'short', PURCHASE_PROVIDER_BASE_URL: 'not a url', SANDBOX_API_KEY: '' };
    expect(() => loadConfig(env, {}, ['database', 'purchaseProvider'])).toThrow(/CALLBACK_TOKEN must be 64 lowercase hexadecimal characters/);
    const payoutOnly = loadConfig(env, {}, ['database', 'payoutProvider']);
    expect(payoutOnly.PAYOUT_PROVIDER_BASE_URL).toBe('http://127.0.0.1:3100');
    expect(() => loadConfig({ PAYOUT_PROVIDER_BASE_URL: 'not a url' }, {}, ['database', 'payoutProvider'])).toThrow(/PAYOUT_PROVIDER_BASE_URL/);
  });

  it('refuses to read a setting of a group the deployable did not declare', () => {
    const config = loadConfig({}, {}, ['database']);
    expect(config.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/gateway');
    expect(config.isProduction).toBe(false);
    expect(() => config.CALLBACK_TOKEN).toThrow(/CALLBACK_TOKEN is in the config group 'purchaseProvider', which this deployable does not declare/);
    expect(() => config.SANDBOX_API_KEY).toThrow(/'sandbox'/);
    expect(() => restrictConfig(loadConfig({}), ['redis']).DATABASE_URL).toThrow(/'database'/);
  });
});
