import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT_VERSION = 'v1';

/** Production without ENCRYPTION_KEYS/ENCRYPTION_ACTIVE_KEY_ID: secrets cannot be stored, so money movements are refused. */
export class EncryptionNotConfiguredError extends Error {
  constructor() {
    super('Field encryption is not configured (ENCRYPTION_KEYS, ENCRYPTION_ACTIVE_KEY_ID)');
    this.name = 'EncryptionNotConfiguredError';
  }
}

export class FieldDecryptionError extends Error {
  constructor(reason: string) {
    super(`Encrypted field could not be decrypted: ${reason}`);
    this.name = 'FieldDecryptionError';
  }
}

/**
 * AES-256-GCM for secrets at rest (PINs, serials, recipient identity). Each value is stored as
 * `v1:{keyId}:{iv}:{tag}:{ciphertext}` (base64), so keys rotate by adding a new id to
 * ENCRYPTION_KEYS and switching ENCRYPTION_ACTIVE_KEY_ID; old values stay readable. The
 * `context` (for example `payout-delivery:{payoutId}`) is bound as associated data, so a
 * ciphertext copied onto another row fails to decrypt instead of revealing the wrong secret.
 */
@Injectable()
export class FieldEncryption {
  private readonly keys = new Map<string, Buffer>();
  private readonly activeKeyId: string | undefined;

  constructor(config: GatewayEnv) {
    for (const entry of (config.ENCRYPTION_KEYS ?? '').split(',').filter((item) => item.length > 0)) {
      const separator = entry.indexOf(':');
      const key = Buffer.from(entry.slice(separator + 1), 'base64');
      if (key.length !== 32) throw new Error(`ENCRYPTION_KEYS entry ${entry.slice(0, separator)} is not 32 bytes`);
      this.keys.set(entry.slice(0, separator), key);
    }
    this.activeKeyId = config.ENCRYPTION_ACTIVE_KEY_ID && this.keys.has(config.ENCRYPTION_ACTIVE_KEY_ID) ? config.ENCRYPTION_ACTIVE_KEY_ID : undefined;
  }

  get isConfigured(): boolean {
    return this.activeKeyId !== undefined;
  }

  encrypt(plaintext: string, context: string): string {
    if (this.activeKeyId === undefined) throw new EncryptionNotConfiguredError();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT_VERSION, this.activeKeyId, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
  }

  decrypt(stored: string, context: string): string {
    const parts = stored.split(':');
    if (parts.length !== 5 || parts[0] !== FORMAT_VERSION) throw new FieldDecryptionError('unknown format');
    const [, keyId, iv, tag, ciphertext] = parts;
    const key = this.keys.get(keyId);
    if (!key) throw new FieldDecryptionError(`key ${keyId} is not configured`);
    try {
      const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new FieldDecryptionError('authentication failed');
    }
  }

  encryptJson(value: unknown, context: string): string {
    return this.encrypt(JSON.stringify(value), context);
  }

  decryptJson<T>(stored: string, context: string): T {
    return JSON.parse(this.decrypt(stored, context)) as T;
  }
}
