import { loadConfig, type GatewayEnv } from '#config';

/** Configuration for apps booted inside a test: the run's own database, quiet logs. */
export function testConfig(overrides: Record<string, string> = {}): GatewayEnv {
  const databaseUrl = process.env.E2E_DATABASE_URL;
  if (!databaseUrl) throw new Error('E2E_DATABASE_URL is not set: run e2e tests through jest with test/jest-e2e.config.cjs');
  return loadConfig(
    { APP_ENV: 'test' },
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379',
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'silent',
      DATABASE_POOL_SIZE: '5',
      QUEUE_PREFIX: process.env.E2E_QUEUE_PREFIX ?? '{e2e}',
      // Tests ingest settlement reports when they mean to (test/reconciliation), never on a wall-clock tick.
      SETTLEMENT_INGEST_INTERVAL_MS: '0',
      ...overrides,
    },
  );
}
