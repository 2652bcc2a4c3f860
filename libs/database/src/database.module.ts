import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayEnv } from '#config';
import { buildDataSourceOptions, type EntityList } from './data-source-options.js';
import { ChangeNotifications } from './persistence/change-notifications.js';

export interface DatabaseModuleOptions {
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** The entity lists of the domains this app imports (see DatabaseSettings.entities). */
  entities: EntityList;
}

@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      // Global for ChangeNotifications: the caches of any lib subscribe through the one connection.
      global: true,
      providers: [
        {
          provide: ChangeNotifications,
          inject: [GatewayEnv],
          // Connects on the first subscription only: a process without a cache opens no LISTEN connection.
          useFactory: (config: GatewayEnv) => new ChangeNotifications({ url: config.DATABASE_URL, applicationName: `${options.applicationName}-listener` }),
        },
      ],
      exports: [ChangeNotifications],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [GatewayEnv],
          useFactory: (config: GatewayEnv) => ({
            ...buildDataSourceOptions({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, preparedStatements: config.DATABASE_PREPARED_STATEMENTS, applicationName: options.applicationName, entities: options.entities }),
            // Start even when the database is briefly unreachable; readiness reports it.
            retryAttempts: 3,
            retryDelay: 1_000,
          }),
        }),
      ],
    };
  }
}
