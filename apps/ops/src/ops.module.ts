import { Module, type DynamicModule } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { ConfigModule, type GatewayEnv } from '#config';
import { DashboardAccountsModule } from '#dashboard';
import { DatabaseModule } from '#database';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule } from '#purchase';
import { SettlementModule } from '#settlement';
import { StaffModule } from '#staff';

/** The operator CLI's application context: domain services, no HTTP. */
@Module({})
export class OpsModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: OpsModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot('ops'), VendorAccountsModule, DashboardAccountsModule, PurchaseDomainModule, PayoutDomainModule, SettlementModule, StaffModule],
    };
  }
}
