/**
 * Every knob of the benchmark, read once from the environment. Defaults keep a whole run under
 * ten minutes on the 2-core development machine; raise the durations for steadier numbers.
 */
const int = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number`);
  return Number(raw);
};

export function readSettings() {
  const pgBase = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const database = process.env.BENCH_DATABASE ?? 'gateway_bench';
  if (!/^[a-z0-9_]+$/.test(database) || !database.includes('bench')) throw new Error('BENCH_DATABASE must be lower-case letters, digits, _ and contain "bench"');
  return {
    pgBase,
    database,
    databaseUrl: `${pgBase}/${database}`,
    pgbenchDatabase: `${database}_pgbench`,
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    /** Another prefix (and BENCH_DATABASE, BENCH_*_PORT) lets two runs share the machine without clearing each other's queues. */
    queuePrefix: process.env.BENCH_QUEUE_PREFIX ?? '{bench}',
    ports: { purchase: int('BENCH_PURCHASE_PORT', 4000), payout: int('BENCH_PAYOUT_PORT', 4001), worker: int('BENCH_WORKER_PORT', 4002), sandbox: int('BENCH_SANDBOX_PORT', 4100), plain: int('BENCH_PLAIN_PORT', 4200) },
    /** Measured seconds per HTTP scenario, after a warm-up that is not counted. */
    durationSeconds: int('BENCH_DURATION_S', 15),
    warmupSeconds: int('BENCH_WARMUP_S', 3),
    connections: int('BENCH_CONNECTIONS', 32),
    /** Vendors the purchase and payout load is spread over (each vendor's admissions serialise on its spend-controls row). */
    vendors: int('BENCH_VENDORS', 8),
    databasePoolSize: int('BENCH_DATABASE_POOL_SIZE', 10),
    workerConcurrency: int('BENCH_WORKER_CONCURRENCY', 16),
    batchItems: 500,
    /** Transactions already stored for the "large table" repeat of the purchase scenario. */
    largeTableRows: int('BENCH_LARGE_TABLE_ROWS', 1_000_000),
    /** Ledger lines added to each vendor's account for the statement reads, and the pages of 50 read of each. */
    statementRows: int('BENCH_STATEMENT_ROWS', 5_000),
    statementPages: int('BENCH_STATEMENT_PAGES', 20),
    /** Ledger lines added to one vendor's account for the export scenario (the e2e test exports 200,000). */
    exportRows: int('BENCH_EXPORT_ROWS', 200_000),
    /** Upper bound of the worker drain measurement. */
    workerSeconds: int('BENCH_WORKER_S', 30),
    /** Verification lookups queued per completed purchase in the verification scenario (a larger queue, same work per job). */
    verifyRounds: int('BENCH_VERIFY_ROUNDS', 3),
    /** Arrival rates tried for the admission's p99 knee (open loop, worker stopped), each for BENCH_KNEE_S seconds. */
    kneeRates: (process.env.BENCH_KNEE_RATES ?? '50,100,150,200,250,300,350,400').split(',').filter(Boolean).map(Number),
    kneeSeconds: int('BENCH_KNEE_S', 8),
    /**
     * Sustained capacity: purchases arrive at a fixed rate for BENCH_SUSTAINED_S seconds with the
     * worker running. BENCH_SUSTAINED_RATES (comma list, purchases/s) fixes the rates tried; without
     * it the first step runs at BENCH_SUSTAINED_START_RATE and each next one is chosen from the
     * steps before (×1.4 while all were sustained, then halfway between the highest sustained rate
     * and the lowest that was not), for up to BENCH_SUSTAINED_STEPS steps.
     */
    sustainedSeconds: int('BENCH_SUSTAINED_S', 60),
    sustainedRates: (process.env.BENCH_SUSTAINED_RATES ?? '').split(',').filter(Boolean).map(Number),
    sustainedStartRate: int('BENCH_SUSTAINED_START_RATE', 100),
    sustainedSteps: int('BENCH_SUSTAINED_STEPS', 7),
    /** BENCH_ROUND_TRIPS=1 counts the worker's SQL statements and Redis commands during the sustained steps (bench/lib/round-trips.cjs). */
    roundTrips: process.env.BENCH_ROUND_TRIPS === '1',
    /** BENCH_SUSTAINED_PROFILE=1 runs the worker under --cpu-prof during the sustained steps. */
    sustainedProfile: process.env.BENCH_SUSTAINED_PROFILE === '1',
    pgbench: { scale: int('BENCH_PGBENCH_SCALE', 10), clients: int('BENCH_PGBENCH_CLIENTS', 32), threads: int('BENCH_PGBENCH_THREADS', 2), seconds: int('BENCH_PGBENCH_S', 20) },
    /** Set BENCH_PROFILE=0 to skip the two --cpu-prof runs. */
    profile: process.env.BENCH_PROFILE !== '0',
    /** Set BENCH_SKIP_BUILD=1 when dist/ is known to be current (development of the harness). */
    skipBuild: process.env.BENCH_SKIP_BUILD === '1',
  };
}
