import { randomBytes } from 'node:crypto';
import { loadConfig } from '#config';
import { EncryptionNotConfiguredError, FieldDecryptionError, FieldEncryption } from './field-encryption.js';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

function encryptionWith(keys: string, active: string): FieldEncryption {
  return new FieldEncryption(loadConfig({ APP_ENV: 'production' }, { ENCRYPTION_KEYS: keys, ENCRYPTION_ACTIVE_KEY_ID: active }));
}

describe('FieldEncryption', () => {
  it('round-trips a value and never stores the plaintext', () => {
    const encryption = encryptionWith(`a:${keyA}`, 'a');
    const stored = encryption.encrypt('PIN 12345', 'ctx:1');
    expect(stored).toMatch(/^v1:a:/);
    expect(stored).not.toContain('12345');
    expect(encryption.decrypt(stored, 'ctx:1')).toBe('PIN 12345');
  });

  it('uses a fresh IV each time', () => {
    const encryption = encryptionWith(`a:${keyA}`, 'a');
    expect(encryption.encrypt('same', 'ctx')).not.toBe(encryption.encrypt('same', 'ctx'));
  });

  it('refuses a ciphertext moved to another context or tampered with', () => {
    const encryption = encryptionWith(`a:${keyA}`, 'a');
    const stored = encryption.encrypt('secret', 'payout:1');
    expect(() => encryption.decrypt(stored, 'payout:2')).toThrow(FieldDecryptionError);
    const parts = stored.split(':');
    parts[4] = Buffer.from('tampered').toString('base64');
    expect(() => encryption.decrypt(parts.join(':'), 'payout:1')).toThrow(FieldDecryptionError);
  });

  it('reads values written under a previous key after rotation', () => {
    const before = encryptionWith(`a:${keyA}`, 'a');
    const stored = before.encrypt('old secret', 'ctx');
    const after = encryptionWith(`a:${keyA},b:${keyB}`, 'b');
    expect(after.decrypt(stored, 'ctx')).toBe('old secret');
    expect(after.encrypt('new', 'ctx')).toMatch(/^v1:b:/);
  });

  it('refuses to encrypt without keys', () => {
    const encryption = new FieldEncryption(loadConfig({ APP_ENV: 'production' }, {}));
    expect(encryption.isConfigured).toBe(false);
    expect(() => encryption.encrypt('x', 'ctx')).toThrow(EncryptionNotConfiguredError);
  });
});
