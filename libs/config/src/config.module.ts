import { Global, Module, type DynamicModule } from '@nestjs/common';
import { restrictConfig, type ConfigGroup } from './config-groups.js';
import { GatewayEnv } from './gateway-env.js';

/** Makes the validated GatewayEnv injectable everywhere (inject the class itself). */
@Global()
@Module({})
export class ConfigModule {
  /** `groups`: the config groups the app declares; every other setting then throws when read (restrictConfig). */
  static forRoot(config: GatewayEnv, groups?: readonly ConfigGroup[]): DynamicModule {
    const value = groups ? restrictConfig(config, groups) : config;
    return { module: ConfigModule, providers: [{ provide: GatewayEnv, useValue: value }], exports: [GatewayEnv] };
  }
}
