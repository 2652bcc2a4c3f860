import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayEnv } from '#config';
import { VendorNotReleasedError } from '../model/spend-control.errors.js';

/**
 * In production, a vendor staff have not yet accepted (`vendors.production_released_at`) may
 * not make the gateway call the provider: lookups and quotes are refused with the same
 * VENDOR_NOT_RELEASED (409) as purchases. Outside production every vendor is released. Read per
 * request (one indexed row), so a release takes effect at once, as it does for purchases.
 */
@Injectable()
export class ProductionRelease {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: GatewayEnv,
  ) {}

  async assertReleased(vendorId: string): Promise<void> {
    if (!this.config.isProduction) return;
    const [row] = await this.dataSource.query(`SELECT production_released_at FROM vendors WHERE id = $1`, [vendorId]);
    if (!row?.production_released_at) throw new VendorNotReleasedError();
  }
}
