import { Injectable } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';

/**
 * Production fails closed: without provider credentials, an encryption key, the callback secret
 * or an HTTPS callback base, no purchase is admitted (PROVIDER_NOT_CONFIGURED). Outside
 * production the development defaults fill these in.
 */
@Injectable()
export class PurchaseReadiness {
  constructor(
    private readonly config: GatewayEnv,
    private readonly encryption: FieldEncryption,
  ) {}

  /** What is missing for money movements; empty when ready. Names only, never values. */
  missing(): string[] {
    const missing: string[] = [];
    if (!this.config.PURCHASE_PROVIDER_BASE_URL) missing.push('PURCHASE_PROVIDER_BASE_URL');
    if (!this.config.PURCHASE_PROVIDER_API_KEY) missing.push('PURCHASE_PROVIDER_API_KEY');
    if (!this.encryption.isConfigured) missing.push('ENCRYPTION_KEYS/ENCRYPTION_ACTIVE_KEY_ID');
    if (!this.config.CALLBACK_TOKEN) missing.push('CALLBACK_TOKEN');
    if (!this.config.CALLBACK_BASE_URL) missing.push('CALLBACK_BASE_URL');
    else if (this.config.isProduction && !this.config.CALLBACK_BASE_URL.startsWith('https://')) missing.push('CALLBACK_BASE_URL (https)');
    return missing;
  }

  /** The URL the provider posts callbacks to. It embeds the secret: never log it. */
  callbackUrl(): string | undefined {
    if (!this.config.CALLBACK_BASE_URL || !this.config.CALLBACK_TOKEN) return undefined;
    return `${this.config.CALLBACK_BASE_URL.replace(/\/+$/, '')}/${this.config.CALLBACK_TOKEN}`;
  }
}
