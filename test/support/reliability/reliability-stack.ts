import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PAYOUT_METHODS, PayoutAccountService, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { PurchaseCatalogueService, PurchaseCatalogueSyncService, PurchasePricingService, PurchaseSpendControlsService, type SpendLimits } from '#purchase';
import { checkInvariants, type InvariantReport } from '#invariants';
import type { SandboxOptions } from '../../../apps/provider-sandbox/src/sandbox-options.js';
import { ReconciliationWorkerModule } from '../../../apps/reconciliation-worker/src/reconciliation-worker.module.js';
import { startPayoutGateway, startPurchaseGateway, type RunningApp } from '../apps.js';
import { CALLBACK_TOKEN, FAST_SANDBOX, FAST_WORKER, GENEROUS_LIMITS, SANDBOX_API_KEY, startSandbox, type RunningSandbox } from '../purchase-stack.js';
import { PAYOUT_SANDBOX_TIMINGS, PAYOUT_STACK_CONFIG } from '../payout-stack.js';
import { testConfig } from '../test-config.js';
import { FaultProxy } from './fault-proxy.js';
import { createTestVendor, type TestVendor } from '../vendors.js';
import { closeEarlierPurchaseWork, stopPurchaseClaims } from '../earlier-purchase-work.js';

/**
 * Both gateways, one provider sandbox serving both capabilities, and (optionally) the worker in
 * process, all on the run's database and a queue prefix of their own. The database, Redis and
 * provider addresses the apps use can be replaced (e.g. by a FaultProxy's), while the test
 * itself reads and checks PostgreSQL directly through `sql`.
 */
export interface ReliabilityStackOptions {
  /** The apps' DATABASE_URL (default: the run's database). */
  databaseUrl?: string;
  redisUrl?: string;
  /** Puts a FaultProxy between the apps and the provider sandbox (`stack.providerProxy`). */
  providerProxy?: boolean;
  sandbox?: Partial<SandboxOptions>;
  /** Settings for every app (gateways and worker, in process or spawned). */
  config?: Record<string, string>;
  /** false: no in-process worker (spawn one, or start it later with startWorker()). */
  worker?: boolean;
}

export interface ReliabilityStack {
  sandbox: RunningSandbox;
  providerUrl: string;
  providerProxy?: FaultProxy;
  purchase: RunningApp & { url: string };
  payout: RunningApp & { url: string };
  queuePrefix: string;
  /** Settings shared by every app of the stack, for spawned compiled apps too. */
  env: Record<string, string>;
  worker?: INestApplication;
  startWorker(): Promise<INestApplication>;
  stopWorker(): Promise<void>;
  /** Direct access to the run's database, whatever path the apps take. */
  sql<T = Record<string, unknown>>(text: string, parameters?: unknown[]): Promise<T[]>;
  purchaseVendor(options?: { limits?: Partial<SpendLimits>; name?: string }): Promise<TestVendor>;
  payoutVendor(options?: { fundCents?: bigint; feePerPayoutCents?: bigint; name?: string }): Promise<TestVendor>;
  /** Provider create/submit calls the sandbox received for a purchase id or merchant reference. */
  witness(kind: 'external_id' | 'merchant_reference', id: string): Promise<{ count: number; duplicate_attempts: number }>;
  invariants(vendorIds: readonly string[]): Promise<InvariantReport>;
  close(): Promise<void>;
}

let stackCounter = 0;

export async function startReliabilityStack(options: ReliabilityStackOptions = {}): Promise<ReliabilityStack> {
  const runDatabaseUrl = process.env.E2E_DATABASE_URL!;
  const queuePrefix = `{e2e-rel${process.pid}-${Date.now().toString(36)}-${++stackCounter}}`;
  const sandbox = await startSandbox({ ...PAYOUT_SANDBOX_TIMINGS, ...FAST_SANDBOX, ...options.sandbox });
  const providerProxy = options.providerProxy ? await FaultProxy.forUrl(sandbox.url) : undefined;
  const providerUrl = providerProxy ? providerProxy.proxied(sandbox.url) : sandbox.url;
  const pool = new pg.Pool({ connectionString: runDatabaseUrl, max: 4, application_name: 'reliability-test' });
  pool.on('error', () => undefined);
  await closeEarlierPurchaseWork(pool);

  const env: Record<string, string> = {
    ...FAST_WORKER,
    ...PAYOUT_STACK_CONFIG,
    DATABASE_URL: options.databaseUrl ?? runDatabaseUrl,
    REDIS_URL: options.redisUrl ?? process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: queuePrefix,
    PURCHASE_PROVIDER_BASE_URL: providerUrl,
    PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY,
    PAYOUT_PROVIDER_BASE_URL: providerUrl,
    PAYOUT_PROVIDER_API_KEY: SANDBOX_API_KEY,
    CALLBACK_TOKEN,
    // Rate limits are exercised by their own tests; these suites send bursts on purpose.
    RATE_LIMIT_READ_PER_MINUTE: '1000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000',
    ...options.config,
  };
  const purchase = (await startPurchaseGateway({ config: env, listen: true })) as RunningApp & { url: string };
  const payout = (await startPayoutGateway({ config: env, listen: true })) as RunningApp & { url: string };
  env.CALLBACK_BASE_URL = `${purchase.url}/api/v1/provider/callback`;
  await purchase.app.get(PurchaseCatalogueSyncService).sync();
  await purchase.app.get(PurchasePricingService).publish(500);

  const stack: ReliabilityStack = {
    sandbox,
    providerUrl,
    providerProxy,
    purchase,
    payout,
    queuePrefix,
    env,
    async startWorker() {
      if (stack.worker) return stack.worker;
      const moduleRef = await Test.createTestingModule({ imports: [ReconciliationWorkerModule.register(testConfig(env))] }).compile();
      const worker = moduleRef.createNestApplication({ logger: false });
      await worker.init();
      stack.worker = worker;
      return worker;
    },
    async stopWorker() {
      const worker = stack.worker;
      stack.worker = undefined;
      await stopPurchaseClaims(worker);
      await worker?.close();
    },
    async sql<T>(text: string, parameters: unknown[] = []) {
      return (await pool.query(text, parameters)).rows as T[];
    },
    async purchaseVendor({ limits, name = 'Reliability purchase vendor' } = {}) {
      const vendor = await createTestVendor(purchase.app, name);
      await purchase.app.get(PurchaseCatalogueService).enableProducts(vendor.vendor.id, 'all');
      await purchase.app.get(PurchaseSpendControlsService).setLimits(vendor.vendor.id, { ...GENEROUS_LIMITS, ...limits });
      return vendor;
    },
    async payoutVendor({ fundCents = 10_000_000n, feePerPayoutCents = 0n, name = 'Reliability payout vendor' } = {}) {
      const vendor = await createTestVendor(payout.app, name);
      await payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
      await payout.app.get(PayoutAccountService).setFeePerPayout(vendor.vendor.id, feePerPayoutCents);
      if (fundCents > 0n) await payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, fundCents, 'reliability funding');
      return vendor;
    },
    async witness(kind, id) {
      const response = await fetch(`${sandbox.url}/__sandbox/submissions?${kind}=${encodeURIComponent(id)}`, { headers: { 'x-api-key': SANDBOX_API_KEY } });
      const { count, duplicate_attempts } = (await response.json()) as { count: number; duplicate_attempts: number };
      return { count, duplicate_attempts };
    },
    invariants: (vendorIds) =>
      checkInvariants(async (text, parameters) => (await pool.query(text, parameters)).rows, {
        vendorIds,
        sandboxes: [{ url: sandbox.url, apiKey: SANDBOX_API_KEY }],
      }),
    async close() {
      const timed = async (step: string, work: () => Promise<unknown>) => {
        const started = Date.now();
        if (process.env.RELIABILITY_DEBUG) process.stdout.write(`reliability stack: closing ${step}\n`);
        await work().catch(() => undefined);
        if (Date.now() - started > 2_000) process.stdout.write(`reliability stack: closing ${step} took ${Date.now() - started} ms\n`);
      };
      await timed('worker', () => stack.stopWorker());
      // Work this stack left behind must not be picked up by later stacks with other sandboxes.
      await pool.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL`).catch(() => undefined);
      await timed('purchase gateway', () => purchase.close());
      await timed('payout gateway', () => payout.close());
      await timed('sandbox', () => sandbox.close());
      await timed('provider proxy', async () => providerProxy?.close());
      await timed('queue keys', () => deleteQueueKeys(queuePrefix));
      await pool.end().catch(() => undefined);
    },
  };
  if (options.worker !== false) await stack.startWorker();
  return stack;
}

/** The stack's queues live under its own prefix (its spawned workers' too); nothing else uses it, so all of it goes. */
async function deleteQueueKeys(prefix: string): Promise<void> {
  const redis = new Redis(process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[[\]*?]/g, '\\$&')}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The violations the checker found for these vendors (printing what it examined): `expect(await invariantViolations(...)).toEqual([])`. */
export async function invariantViolations(stack: ReliabilityStack, vendorIds: readonly string[]) {
  const report = await stack.invariants(vendorIds);
  process.stdout.write(`invariants: ${JSON.stringify({ examined: report.examined, violations: report.violations.length })}\n`);
  return report.violations;
}

/**
 * The end of every reliability suite: the checker finds nothing wrong with the books of the
 * suite's vendors, then the suite's own final checks run (`andThen`), and the stack and anything
 * in `alsoClose` (fault proxies) are closed whatever failed.
 */
export async function closeCheckingBooks(
  stack: ReliabilityStack | undefined,
  vendorIds: () => readonly string[],
  options: { andThen?: () => Promise<void> | void; alsoClose?: ReadonlyArray<{ close(): Promise<unknown> } | undefined> } = {},
): Promise<void> {
  try {
    if (stack) {
      expect(await invariantViolations(stack, vendorIds())).toEqual([]);
      await options.andThen?.();
    }
  } finally {
    await stack?.close();
    for (const other of options.alsoClose ?? []) await other?.close();
  }
}

/**
 * Counts and sums of every table money or limits live in, and how many tables exist: a refused
 * request (any 4xx), an injection or a fuzzed body must leave it unchanged.
 */
export async function moneyState(stack: ReliabilityStack): Promise<string> {
  const [row] = await stack.sql<{ state: string }>(
    `SELECT json_build_object(
       'quotes', (SELECT count(*) FROM purchase_quotes),
       'transactions', (SELECT count(*) FROM purchase_transactions),
       'idempotency_keys', (SELECT count(*) FROM purchase_idempotency_keys),
       'allowance_used', (SELECT COALESCE(sum(used_cents), 0)::text FROM purchase_daily_allowances),
       'velocity_admissions', (SELECT COALESCE(sum(admissions), 0)::text FROM purchase_velocity_buckets),
       'callback_markers', (SELECT count(*) FROM purchase_callback_markers),
       'payouts', (SELECT count(*) FROM payouts),
       'batches', (SELECT count(*) FROM payout_batches),
       'ledger_entries', (SELECT count(*) FROM ledger_entries),
       'balances', (SELECT COALESCE(sum(available_cents), 0)::text || '/' || COALESCE(sum(reserved_cents), 0)::text FROM payout_accounts),
       'outbox', (SELECT count(*) FROM outbox_messages),
       'tables', (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')
     )::text AS state`,
  );
  return row.state;
}

/** Exported for suites that need a fresh vendor beside a stack's own. */
export type { TestVendor };
export { PAYOUT_STACK_CONFIG };
