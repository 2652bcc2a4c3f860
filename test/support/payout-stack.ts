import { Injectable, type INestApplication, type OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService, PayoutAccountService, type LedgerDiscrepancy } from '#payout';
import { JobHandlerRegistry, QUEUES, WorkerQueuesModule, type JobName } from '#queues';
import { createSandboxApp } from '../../apps/provider-sandbox/src/create-sandbox-app.js';
import type { SandboxOptions } from '../../apps/provider-sandbox/src/sandbox-options.js';
import { ReconciliationWorkerModule } from '../../apps/reconciliation-worker/src/reconciliation-worker.module.js';
import { startPayoutGateway, type RunningApp } from './apps.js';
import { testConfig } from './test-config.js';
import { createTestVendor, type TestVendor } from './vendors.js';
import { stopPurchaseClaims } from './earlier-purchase-work.js';

/**
 * The payout side end to end, in process: the provider sandbox on a real socket with short
 * delays, the payout gateway, and the reconciliation worker with short polling windows, all on
 * the run's database and a queue prefix of their own.
 */
export const PAYOUT_SANDBOX_KEY = 'e2e-payout-sandbox-key';

export const PAYOUT_SANDBOX_TIMINGS: Partial<SandboxOptions> = {
  completeDelayMs: 100,
  rtcSettleDelayMs: 300,
  reversalDelayMs: 500,
  timeoutHangMs: 1_000,
};

export const PAYOUT_STACK_CONFIG: Record<string, string> = {
  PAYOUT_PROVIDER_TIMEOUT_MS: '400',
  PAYOUT_POLL_INITIAL_DELAY_MS: '200',
  PAYOUT_POLL_MAX_INTERVAL_MS: '400',
  PAYOUT_REVIEW_AFTER_MS: '1500',
  PAYOUT_NOT_FOUND_SETTLE_MS: '300',
  PAYOUT_REVIEW_POLL_INTERVAL_MS: '300',
  PAYOUT_REVERSAL_WATCH_MS: '2000',
  PAYOUT_SWEEP_INTERVAL_MS: '60000',
  DATABASE_POOL_SIZE: '10',
};

export interface PayoutTestVendor extends TestVendor {
  /** Token without payouts:delivery. */
  readWriteToken: string;
}

export interface PayoutStack {
  sandboxUrl: string;
  gateway: RunningApp;
  /** The reconciliation worker (throws when started with `worker: false` and not yet started). */
  readonly worker: INestApplication;
  startWorker(): Promise<INestApplication>;
  dataSource: DataSource;
  /** How many submissions the sandbox received for a merchant reference. */
  submissions(merchantReference: string): Promise<{ count: number; duplicate_attempts: number }>;
  /** A vendor with all methods enabled, funded with `fundCents`, and the account fee set. */
  vendor(options?: { fundCents?: bigint; feePerPayoutCents?: bigint; name?: string }): Promise<PayoutTestVendor>;
  discrepancies(): Promise<LedgerDiscrepancy[]>;
  close(): Promise<void>;
}

/**
 * Jobs of the other domain get a handler that completes them untouched, so the worker starts
 * with only the payout module present. It runs last among module inits (root module) and only
 * fills gaps, so a real handler always wins.
 */
@Injectable()
class OtherDomainJobsIgnored implements OnModuleInit {
  constructor(private readonly registry: JobHandlerRegistry) {}

  onModuleInit(): void {
    const all = Object.values(QUEUES).flat() as JobName[];
    for (const jobName of this.registry.missing(all)) {
      this.registry.register(jobName, { handle: async () => undefined, onFinalFailure: async () => undefined });
    }
  }
}

export async function startPayoutStack(
  options: {
    config?: Record<string, string>;
    sandbox?: Partial<SandboxOptions>;
    /** false: start it later with startWorker() */
    worker?: boolean;
    /** Serve the gateway on a real socket (`gateway.url`), for clients that speak HTTP such as the SDK. */
    listen?: boolean;
    /** The purchase provider's settlement reports from the same sandbox (its `dvs` API), for tests of every provider's day. */
    purchaseReports?: boolean;
  } = {},
): Promise<PayoutStack> {
  const sandbox = await createSandboxApp({ ...PAYOUT_SANDBOX_TIMINGS, ...options.sandbox, apiKey: PAYOUT_SANDBOX_KEY, logger: false });
  await sandbox.listen(0, '127.0.0.1');
  const sandboxUrl = `http://127.0.0.1:${(sandbox.getHttpServer().address() as AddressInfo).port}`;
  const config = {
    ...PAYOUT_STACK_CONFIG,
    PAYOUT_PROVIDER_BASE_URL: sandboxUrl,
    PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY,
    ...(options.purchaseReports ? { PURCHASE_PROVIDER_BASE_URL: sandboxUrl, PURCHASE_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY } : {}),
    // Only this stack's worker consumes its jobs, whatever else shares the Redis server.
    QUEUE_PREFIX: `{e2e-payout-${process.pid}-${Date.now().toString(36)}}`,
    ...options.config,
  };

  const gateway = await startPayoutGateway({ config, listen: options.listen });
  const bootWorker = async () => {
    const workerModule = await Test.createTestingModule({
      imports: [ReconciliationWorkerModule.register(testConfig(config)), WorkerQueuesModule],
      providers: [OtherDomainJobsIgnored],
    }).compile();
    const app = workerModule.createNestApplication({ logger: false });
    await app.init();
    return app;
  };
  let worker: INestApplication | undefined;
  try {
    if (options.worker !== false) worker = await bootWorker();
  } catch (error) {
    await gateway.close();
    await sandbox.close();
    throw error;
  }
  const dataSource = gateway.app.get(DataSource);

  return {
    sandboxUrl,
    gateway,
    get worker() {
      if (!worker) throw new Error('the worker is not running; call startWorker()');
      return worker;
    },
    async startWorker() {
      worker ??= await bootWorker();
      return worker;
    },
    dataSource,
    async submissions(merchantReference) {
      const response = await fetch(`${sandboxUrl}/__sandbox/submissions?merchant_reference=${encodeURIComponent(merchantReference)}`, {
        headers: { 'x-api-key': PAYOUT_SANDBOX_KEY },
      });
      const { count, duplicate_attempts } = (await response.json()) as { count: number; duplicate_attempts: number };
      return { count, duplicate_attempts };
    },
    async vendor({ fundCents = 1_000_000n, feePerPayoutCents = 0n, name = 'Payout vendor' } = {}) {
      const vendor = await createTestVendor(gateway.app, name);
      await gateway.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
      await gateway.app.get(PayoutAccountService).setFeePerPayout(vendor.vendor.id, feePerPayoutCents);
      if (fundCents > 0n) await gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, fundCents, 'e2e funding');
      const readWrite = await vendor.issue(['payouts:read', 'payouts:write']);
      return { ...vendor, readWriteToken: readWrite.token };
    },
    discrepancies: () => gateway.app.get(PayoutLedgerService).findDiscrepancies(),
    async close() {
      await stopPurchaseClaims(worker);
      await worker?.close();
      // This stack's queues die with it: later stacks (other test files) must not relay its leftovers.
      await dataSource.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name LIKE 'payout.%'`).catch(() => undefined);
      await gateway.close();
      await sandbox.close();
    },
  };
}

/**
 * Polls until the probe passes or the time is up (then rethrows the probe's last error). The
 * default deadline is generous: it only bounds how long a broken test takes to fail, and on a
 * busy machine a correct one may need many times its usual time.
 */
export async function eventually<T>(probe: () => Promise<T>, timeoutMs = 30_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/** A valid RSA ID number (1980-01-01, citizen) and friends for building requests. */
export const VALID_RSA_ID = '8001015009087';
