import { Module, type DynamicModule } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { ConfigModule, type GatewayEnv, type ConfigGroup } from '#config';
import { DashboardAccountsModule } from '#dashboard';
import { DatabaseModule } from '#database';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule } from '#purchase';
import { SettlementModule } from '#settlement';
import { StaffExceptionsModule, StaffModule, VendorFunding, VendorOperations, VendorProposalKinds } from '#staff';
import { ALL_ENTITIES } from './entities.js';

/** The config groups this deployable validates and may read (libs/config/src/config-groups.ts). Every domain (vendors, pricing, payouts, settlement runs, dashboard invites). */
export const OPS_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'dashboard', 'encryption', 'purchaseProvider', 'purchaseTimings', 'payoutProvider', 'payoutTimings', 'settlement', 'webhooks', 'staffFourEyes'];

/** The operator CLI's application context: domain services, no HTTP. */
@Module({})
export class OpsModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: OpsModule,
      imports: [ConfigModule.forRoot(config, OPS_CONFIG), DatabaseModule.forRoot({ applicationName: 'ops', entities: ALL_ENTITIES }), VendorAccountsModule, DashboardAccountsModule, PurchaseDomainModule, PayoutDomainModule, SettlementModule, StaffModule, StaffExceptionsModule],
      // The vendor operations the back-office also offers, so both write the same audit records;
      // the money ones above STAFF_FOUR_EYES_ABOVE_CENTS become the back-office's own four-eyes
      // proposals (VendorFunding, the `payout.fund` / `limits.set` kinds), approved there; so do
      // the money resolutions of `reconcile:resolve` (StaffExceptionsModule, `exception.resolve`).
      providers: [VendorOperations, VendorProposalKinds, VendorFunding],
    };
  }
}
