import { Module, type DynamicModule } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { ConfigModule, type GatewayEnv } from '#config';
import { DashboardAccountsModule } from '#dashboard';
import { DatabaseModule } from '#database';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule } from '#purchase';
import { SettlementModule } from '#settlement';
import { ALL_ENTITIES } from './entities.js';

/** The operator CLI's application context: domain services, no HTTP. */
@Module({})
export class OpsModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: OpsModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot({ applicationName: 'ops', entities: ALL_ENTITIES }), VendorAccountsModule, DashboardAccountsModule, PurchaseDomainModule, PayoutDomainModule, SettlementModule],
    };
  }
}
