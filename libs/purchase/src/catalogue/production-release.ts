import { Injectable } from '@nestjs/common';
import { VendorDirectory } from '#auth';
import { GatewayEnv } from '#config';
import { VendorNotReleasedError } from '../model/purchase-errors.js';

/**
 * In production, a vendor staff have not yet accepted (`vendors.production_released_at`) may
 * not make the gateway call the provider: lookups and quotes are refused with the same
 * VENDOR_NOT_RELEASED (409) as purchases. Outside production every vendor is released. Read per
 * request (one indexed row), so a release takes effect at once, as it does for purchases.
 */
@Injectable()
export class ProductionRelease {
  constructor(
    private readonly vendors: VendorDirectory,
    private readonly config: GatewayEnv,
  ) {}

  async assertReleased(vendorId: string): Promise<void> {
    if (!this.config.isProduction) return;
    if (!(await this.vendors.productionReleasedAt(vendorId))) throw new VendorNotReleasedError();
  }
}
