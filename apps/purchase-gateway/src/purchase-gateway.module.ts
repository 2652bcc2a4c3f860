import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '#auth';
import { ApiSurfaceModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PURCHASE_ERRORS } from '#purchase';
import { RedisModule } from '#queues';

@Module({})
export class PurchaseGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PurchaseGatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('purchase-gateway'),
        DatabaseModule.forRoot('purchase-gateway'),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot('purchase', PURCHASE_ERRORS),
      ],
    };
  }
}
