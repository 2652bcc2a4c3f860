import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayEnv } from '#config';
import { buildDataSourceOptions } from './data-source-options.js';

@Module({})
export class DatabaseModule {
  static forRoot(applicationName: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [GatewayEnv],
          useFactory: (config: GatewayEnv) => ({
            ...buildDataSourceOptions({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, applicationName }),
            // Start even when the database is briefly unreachable; readiness reports it.
            retryAttempts: 3,
            retryDelay: 1_000,
          }),
        }),
      ],
    };
  }
}
