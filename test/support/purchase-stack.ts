import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { PurchaseCatalogueService, PurchaseCatalogueSyncService, PurchasePricingService, PurchaseSpendControlsService, type SpendLimits } from '#purchase';
import { createSandboxApp } from '../../apps/provider-sandbox/src/create-sandbox-app.js';
import type { SandboxOptions } from '../../apps/provider-sandbox/src/sandbox-options.js';
import { ReconciliationWorkerModule } from '../../apps/reconciliation-worker/src/reconciliation-worker.module.js';
import { startPurchaseGateway, type RunningApp } from './apps.js';
import { testConfig } from './test-config.js';
import { bearer, createTestVendor, type TestVendor } from './vendors.js';
import { closeEarlierPurchaseWork, stopPurchaseClaims } from './earlier-purchase-work.js';

/** Short clocks so every sandbox test value settles within a few seconds. */
export const FAST_SANDBOX: Partial<SandboxOptions> = {
  completeDelayMs: 300,
  reversalDelayMs: 1_000,
  timeoutHangMs: 2_500,
  lateStatusDelayMs: 1_000,
  callbackTimeoutMs: 1_000,
};

export const FAST_WORKER: Record<string, string> = {
  PURCHASE_PROVIDER_TIMEOUT_MS: '1000',
  PURCHASE_VERIFY_INITIAL_DELAY_MS: '200',
  PURCHASE_VERIFY_MAX_DELAY_MS: '500',
  PURCHASE_VERIFICATION_WINDOW_MS: '5000',
  PURCHASE_NOT_FOUND_SETTLE_MS: '300',
  PURCHASE_REVERSAL_WATCH_MS: '3000',
  PURCHASE_REVERSAL_WATCH_INTERVAL_MS: '300',
  PURCHASE_SWEEP_INTERVAL_MS: '1000',
  WORKER_CONCURRENCY: '32',
};

export const CALLBACK_TOKEN = 'c0ffee'.repeat(10) + 'c0ff';
export const SANDBOX_API_KEY = 'sandbox-key';

export interface RunningSandbox {
  app: INestApplication;
  url: string;
  /** Create calls the sandbox received for our transaction id (accepted, failed or duplicate). */
  creates: (transactionId: string) => Promise<number>;
  close: () => Promise<void>;
}

export async function startSandbox(options: Partial<SandboxOptions> = FAST_SANDBOX): Promise<RunningSandbox> {
  const app = await createSandboxApp({ ...options, apiKey: SANDBOX_API_KEY, logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    creates: async (transactionId) => {
      const response = await fetch(`${url}/__sandbox/submissions?external_id=${encodeURIComponent(transactionId)}`, { headers: { 'x-api-key': SANDBOX_API_KEY } });
      const body = (await response.json()) as { count: number };
      return body.count;
    },
    close: () => app.close(),
  };
}

let stackCounter = 0;

export interface PurchaseStack {
  sandbox: RunningSandbox;
  gateway: RunningApp;
  /** The running worker; absent when started with `worker: false` until startWorker() is called. */
  worker?: INestApplication;
  /** `overrides` are added to the worker's configuration (e.g. a provider URL through a fault proxy). */
  startWorker: (overrides?: Record<string, string>) => Promise<INestApplication>;
  db: DataSource;
  /** Creates a vendor with products enabled and spend controls set (pass `limits: null` to leave them unset). */
  vendor: (options?: VendorSetup) => Promise<TestVendor>;
  close: () => Promise<void>;
}

export interface VendorSetup {
  enable?: 'all' | number[] | null;
  limits?: Partial<SpendLimits> | null;
  release?: boolean;
  name?: string;
}

export const GENEROUS_LIMITS: SpendLimits = {
  dailyCapMinor: 100_000_000,
  transactionMaxMinor: 10_000_000,
  velocityCount: 10_000,
  velocityWindowSeconds: 60,
};

/**
 * Sandbox, gateway (listening, so the sandbox can call back) and worker, each stack with its
 * own queue prefix. The catalogue is synced and a pricing version published (margin 5 %).
 */
export async function startPurchaseStack(
  options: { gateway?: Record<string, string>; worker?: Record<string, string> | false; sandbox?: Partial<SandboxOptions> } = {},
): Promise<PurchaseStack> {
  const queuePrefix = `{e2e-p${process.pid}-${Date.now() % 1e9}-${++stackCounter}}`;
  const sandbox = await startSandbox({ ...FAST_SANDBOX, ...options.sandbox });
  const shared = {
    PURCHASE_PROVIDER_BASE_URL: sandbox.url,
    PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY,
    CALLBACK_TOKEN,
    QUEUE_PREFIX: queuePrefix,
    ...FAST_WORKER,
  };
  const gateway = await startPurchaseGateway({ config: { ...shared, ...options.gateway }, listen: true });
  const db = gateway.app.get(DataSource);
  await closeEarlierPurchaseWork(db);
  await gateway.app.get(PurchaseCatalogueSyncService).sync();
  await gateway.app.get(PurchasePricingService).publish(500);

  const stack: PurchaseStack = {
    sandbox,
    gateway,
    db,
    startWorker: async (overrides = {}) => {
      const workerConfig = testConfig({ ...shared, CALLBACK_BASE_URL: `${gateway.url}/api/v1/provider/callback`, ...(options.worker || {}), ...overrides });
      const moduleRef = await Test.createTestingModule({ imports: [ReconciliationWorkerModule.register(workerConfig)] }).compile();
      const worker = moduleRef.createNestApplication({ logger: false });
      await worker.init();
      stack.worker = worker;
      return worker;
    },
    vendor: async (setup: VendorSetup = {}) => {
      const created = await createTestVendor(gateway.app, setup.name ?? 'Purchase vendor');
      if (setup.enable !== null) await gateway.app.get(PurchaseCatalogueService).enableProducts(created.vendor.id, setup.enable ?? 'all');
      if (setup.limits !== null) await gateway.app.get(PurchaseSpendControlsService).setLimits(created.vendor.id, { ...GENEROUS_LIMITS, ...setup.limits });
      if (setup.release) await db.query(`UPDATE vendors SET production_released_at = now() WHERE id = $1`, [created.vendor.id]);
      return created;
    },
    close: async () => {
      await stopPurchaseClaims(stack.worker);
      await stack.worker?.close();
      await gateway.close();
      await sandbox.close();
      await deleteQueueKeys(queuePrefix);
    },
  };
  if (options.worker !== false) await stack.startWorker();
  return stack;
}

/** The stack's queues live under its own prefix; nothing else uses it, so all of it goes. */
async function deleteQueueKeys(prefix: string): Promise<void> {
  const redis = new Redis(process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[[\]*?]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // Leftover keys in a shared test Redis are harmless; the run's result does not depend on them.
  } finally {
    redis.disconnect();
  }
}

/**
 * A describe block's stack and vendor: started before its tests, closed after them. `started`
 * hands both to the block's own variables, so its tests read `stack` and `vendor` as before.
 */
export function usePurchaseStack(
  started: (suite: { stack: PurchaseStack; vendor: TestVendor }) => void,
  options: Parameters<typeof startPurchaseStack>[0] = {},
): void {
  let stack: PurchaseStack | undefined;
  beforeAll(async () => {
    stack = await startPurchaseStack(options);
    started({ stack, vendor: await stack.vendor() });
  });
  afterAll(async () => {
    await stack?.close();
  });
}

/** Polls until `read` returns a value `done` accepts, or fails with the last value seen. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    last = await read();
  }
  return last;
}

/** Sandbox product ids (stable: apps/provider-sandbox/src/purchase/catalogue/purchase-catalogue.data.ts). */
export const PRODUCTS = {
  /** Vodacom ZA Airtime 10.00 ZAR, fixed. */
  fixedAirtime: 10101,
  /** Vodacom ZA Airtime 5.00-1000.00 ZAR, ranged, step 1.00. */
  rangedAirtime: 10106,
  /** Vodacom ZA Airtime PIN 12.00 ZAR. */
  pin: 10107,
  /** Orbit eSIM 1GB 7 days. */
  esim: 12001,
  /** City Power Johannesburg account payment: ranged, statement lookup. */
  bill: 11001,
  /** MTN Nigeria Airtime 500 NGN. */
  nigeriaAirtime: 20101,
} as const;

export { bearer };
