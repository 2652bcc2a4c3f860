import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '#auth';
import { ApiSurfaceModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ERRORS, PayoutDomainModule } from '#payout';
import { RedisModule } from '#queues';
import { AccountController } from './account/account.controller.js';
import { BatchesController } from './batches/batches.controller.js';
import { MethodsController } from './methods/methods.controller.js';
import { PayoutsController } from './payouts/payouts.controller.js';

@Module({})
export class PayoutGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PayoutGatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('payout-gateway'),
        DatabaseModule.forRoot('payout-gateway'),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot('payout', PAYOUT_ERRORS),
        PayoutDomainModule,
      ],
      controllers: [AccountController, MethodsController, PayoutsController, BatchesController],
    };
  }
}
