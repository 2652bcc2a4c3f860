import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';
import { PreparedStatementClient } from './prepared-statement-client.js';
import { QueryErrorLogger } from './query-logger.js';

/** Entity classes as TypeORM takes them. */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

export interface DatabaseSettings {
  url: string;
  poolSize: number;
  applicationName: string;
  /** Parameterised statements as named prepared statements of their connection (PreparedStatementClient); default true. */
  preparedStatements?: boolean;
  /**
   * The entity classes this process reads and writes through TypeORM, composed by the app from
   * the lists the domain libs export (PURCHASE_ENTITIES, PAYOUT_ENTITIES, AUTH_ENTITIES,
   * OUTBOX_ENTITIES), so this platform lib depends on no domain. None for the migration runner:
   * the migrations define the schema and need no entity.
   */
  entities?: EntityList;
}

/** The one TypeORM configuration: apps, the migration CLI and the tests all build it here. */
export function buildDataSourceOptions(settings: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    entities: settings.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // Schema changes happen only through committed migrations.
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    logger: new QueryErrorLogger(),
    applicationName: settings.applicationName,
    extra: {
      max: settings.poolSize,
      // A request should fail fast with a 503 rather than hang when the database is unreachable.
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      statement_timeout: 15_000,
      // Pinned per connection rather than per transaction: TypeORM's transaction(level) sends a
      // separate SET TRANSACTION statement, a round trip on every purchase admission. Code that
      // needs a stronger level still asks for it explicitly.
      options: '-c default_transaction_isolation=read\\ committed',
      ...(settings.preparedStatements === false ? {} : { Client: PreparedStatementClient }),
    },
  };
}
