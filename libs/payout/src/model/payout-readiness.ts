import { Injectable } from '@nestjs/common';
import { DomainError, FieldEncryption } from '#common';
import { GatewayEnv } from '#config';

export class ProviderNotConfiguredDomainError extends DomainError {
  constructor() {
    super('PROVIDER_NOT_CONFIGURED', 'The payout provider or field encryption is not configured');
  }
}

export class VendorNotReleasedError extends DomainError {
  constructor() {
    super('VENDOR_NOT_RELEASED', 'The account is not yet accepted for production');
  }
}

/**
 * Production fails closed (README, "Configuration"): without provider credentials or encryption keys no money
 * moves, and a vendor not yet accepted for production cannot send payouts. Elsewhere the local
 * sandbox and development keys are the defaults.
 */
@Injectable()
export class PayoutReadiness {
  constructor(
    private readonly config: GatewayEnv,
    private readonly encryption: FieldEncryption,
  ) {}

  canMovePayouts(): boolean {
    const providerConfigured = !this.config.isProduction || (Boolean(this.config.PAYOUT_PROVIDER_BASE_URL) && Boolean(this.config.PAYOUT_PROVIDER_API_KEY));
    return providerConfigured && this.encryption.isConfigured;
  }

  assertCanMovePayouts(vendor: { productionReleasedAt: Date | null }): void {
    if (!this.canMovePayouts()) throw new ProviderNotConfiguredDomainError();
    if (this.config.isProduction && vendor.productionReleasedAt === null) throw new VendorNotReleasedError();
  }
}
