import { Global, Module, type DynamicModule } from '@nestjs/common';
import { GatewayEnv } from './gateway-env.js';

/** Makes the validated GatewayEnv injectable everywhere (inject the class itself). */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: GatewayEnv): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: GatewayEnv, useValue: config }], exports: [GatewayEnv] };
  }
}
