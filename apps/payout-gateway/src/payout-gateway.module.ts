import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '#auth';
import { ApiSurfaceModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ERRORS } from '#payout';
import { RedisModule } from '#queues';

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
      ],
    };
  }
}
