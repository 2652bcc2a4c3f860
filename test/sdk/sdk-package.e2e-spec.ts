import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { signatureHeader } from '../../libs/webhooks/src/webhook-signature.js';

/**
 * The SDK as a vendor gets it: `npm pack` in packages/sdk, then a fresh folder outside the
 * repository installs the tarball and runs a vendor program under Node ESM and CommonJS, and
 * type-checks vendor code with TypeScript's `nodenext` and `bundler` resolution. The program talks
 * to a local HTTP server standing in for the gateway (slow answers, a 429 with Retry-After, pages),
 * and verifies a webhook delivery signed by the gateways' own signer (libs/webhooks).
 */
const run = promisify(execFile);
const ROOT = resolve('.');
const SDK = join(ROOT, 'packages/sdk');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** A purchase gateway stand-in: base address `/api/v1`, the purchase envelope. */
function fakeGateway(): { server: Server; hits: Map<string, number> } {
  const hits = new Map<string, number>();
  const ok = (res: ServerResponse, data: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${randomUUID()}`, 'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '119', ...headers });
    res.end(JSON.stringify({ success: true, message: 'OK', data }));
  };
  const fail = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${randomUUID()}`, ...headers });
    res.end(JSON.stringify({ success: false, message: code, error: { code } }));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://gateway.test');
    const scenario = String(req.headers['x-scenario'] ?? '');
    const key = `${scenario} ${req.method} ${url.pathname}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    if (req.headers.authorization !== 'Bearer gwt_test_vendor') return fail(res, 401, 'UNAUTHENTICATED');
    if (url.pathname === '/api/v1/limits') {
      // Never answers in time: the client's timeout or signal must end the call.
      const timer = setTimeout(() => ok(res, { currency: 'ZAR' }), 10_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === '/api/v1/services') {
      // Throttled once, then served: the SDK must wait exactly Retry-After.
      return hits.get(key) === 1 ? fail(res, 429, 'API_RATE_LIMITED', { 'Retry-After': '1' }) : ok(res, [{ id: 3, name: 'PIN vouchers' }]);
    }
    if (url.pathname === '/api/v1/transactions' && req.method === 'GET') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('per_page') ?? '20');
      const all = Array.from({ length: 5 }, (_, index) => ({ id: `t-${index + 1}`, reference: `ref-${index + 1}`, status: 'completed' }));
      return ok(res, { items: all.slice((page - 1) * perPage, page * perPage), page, total: all.length, last_page: Math.ceil(all.length / perPage) });
    }
    if (url.pathname === '/api/v1/transactions' && req.method === 'POST') return fail(res, 409, 'IDEMPOTENCY_CONFLICT');
    return fail(res, 404, 'NOT_FOUND');
  });
  return { server, hits };
}

/** The vendor's runtime checks, the same in ESM and CommonJS; prints one JSON line. */
const checks = (load: string) => `${load}
const results = {};
const base = process.env.GATEWAY_URL;
const fixture = JSON.parse(process.env.WEBHOOK_FIXTURE);
const scenario = process.env.SCENARIO;
const client = new sdk.PurchaseClient({ baseUrl: base, token: 'gwt_test_vendor', retry: false, timeoutMs: 10_000 });

async function main() {
  // A timeout per request: no answer within 300 ms.
  let started = Date.now();
  const timedOut = await client.getLimits({ timeoutMs: 300 }).catch((error) => error);
  results.timeout = { name: timedOut.name, isTimeout: timedOut instanceof sdk.GatewayTimeoutError, isBase: timedOut instanceof sdk.GatewayError, ms: Date.now() - started };

  // A client default timeout.
  const quick = new sdk.PurchaseClient({ baseUrl: base, token: 'gwt_test_vendor', retry: false, timeoutMs: 200 });
  started = Date.now();
  const timedOutDefault = await quick.getLimits().catch((error) => error);
  results.defaultTimeout = { isTimeout: timedOutDefault instanceof sdk.GatewayTimeoutError, ms: Date.now() - started };

  // Abort through the caller's AbortSignal.
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 150);
  started = Date.now();
  const aborted = await client.getLimits({ signal: controller.signal }).catch((error) => error);
  results.abort = { name: aborted.name, ms: Date.now() - started };

  // A 429 retried after Retry-After (1 s), then served; per-request headers reach the gateway.
  const retries = [];
  const patient = new sdk.PurchaseClient({ baseUrl: base, token: 'gwt_test_vendor', onRetry: (event) => retries.push(event) });
  started = Date.now();
  const { data: services, response } = await patient.listServices({ headers: { 'X-Scenario': scenario } }).withResponse();
  results.rateLimit = { services: services.length, retries: retries.map((event) => ({ status: event.status, delayMs: event.delayMs })), ms: Date.now() - started, requestId: typeof response.requestId, limit: response.rateLimit.limit };

  // A 429 without retries is a RateLimitError with retryAfter.
  const once = await client.listServices({ headers: { 'X-Scenario': scenario + '-once' } }).catch((error) => error);
  results.rateLimitError = { isRateLimit: once instanceof sdk.RateLimitError, isApi: once instanceof sdk.GatewayApiError, retryAfter: once.retryAfter, code: once.code };

  // Error classes by kind.
  const conflict = await client.createTransaction({ quote_id: 'q', reference: 'r' }).catch((error) => error);
  results.conflict = { idempotency: conflict instanceof sdk.IdempotencyConflictError, conflict: conflict instanceof sdk.ConflictError, code: conflict.code, operation: conflict.operation, typed: sdk.isPurchaseError(conflict, 'createTransaction') };
  const unauthenticated = await new sdk.PurchaseClient({ baseUrl: base, token: 'gwt_test_other' }).listCountries().catch((error) => error);
  results.authentication = unauthenticated instanceof sdk.AuthenticationError;

  // Pagination walks every page.
  const seen = [];
  for await (const transaction of client.listTransactions({ per_page: 2 }, { headers: { 'X-Scenario': scenario } })) seen.push(transaction.id);
  results.pagination = seen;

  // Webhooks: a delivery signed by the gateway's signer is verified; tampering and age are refused.
  const event = sdk.constructEvent(fixture.body, fixture.header, fixture.secret);
  results.webhook = { type: event.type, id: event.id };
  const refuse = (fn) => { try { fn(); return 'accepted'; } catch (error) { return error instanceof sdk.WebhookSignatureError ? error.reason : String(error); } };
  results.tampered = refuse(() => sdk.constructEvent(fixture.body.replace('completed', 'failed'), fixture.header, fixture.secret));
  results.old = refuse(() => sdk.constructEvent(fixture.oldBody, fixture.oldHeader, fixture.secret));
  results.wrongSecret = refuse(() => sdk.constructEvent(fixture.body, fixture.header, 'whsec_other'));
  results.rotation = sdk.Webhooks.constructEvent(Buffer.from(fixture.rotatedBody), fixture.rotatedHeader, ['whsec_unknown', fixture.previousSecret]).id;

  // A missing baseUrl names what is expected.
  results.baseUrl = refuse(() => new sdk.PayoutClient({ baseUrl: undefined, token: 'x' }));
}

main().then(() => console.log(JSON.stringify(results)), (error) => { console.error(error); process.exit(1); });
`;

/** Vendor code type-checked against the installed package: the `@ts-expect-error` lines must be errors. */
const TYPED = `import { GatewayTimeoutError, isPayoutError, isPurchaseError, PayoutClient, PurchaseClient, constructEvent, type PurchaseErrorCodes } from '@za-gateway/sdk';

export async function vendor(purchase: PurchaseClient, payout: PayoutClient, raw: string, header: string): Promise<void> {
  try {
    await purchase.createTransaction({ quote_id: 'q', reference: 'r' }, { idempotencyKey: 'k', timeoutMs: 5_000, signal: AbortSignal.timeout(10_000), headers: { 'X-Trace': '1' } });
  } catch (error) {
    if (isPurchaseError(error, 'createTransaction')) {
      if (error.code === 'IDEMPOTENCY_CONFLICT') console.log(error.requestId);
      // @ts-expect-error a misspelt code does not compile
      if (error.code === 'IDEMPOTENCY_CONFLICTT') console.log('never');
    }
    if (error instanceof GatewayTimeoutError) console.log(error.timeoutMs);
  }
  try {
    await payout.createPayout({} as Parameters<PayoutClient['createPayout']>[0]);
  } catch (error) {
    if (isPayoutError(error, 'createPayout')) {
      switch (error.code) {
        case 'REFERENCE_CONFLICT':
          break;
        // @ts-expect-error a misspelt code does not compile in a switch either
        case 'INSUFICIENT_FUNDS':
          break;
      }
    }
  }
  const code: PurchaseErrorCodes['getLimits'] = 'UNAUTHENTICATED';
  // @ts-expect-error a code getLimits never answers
  const wrong: PurchaseErrorCodes['getLimits'] = 'QUOTE_EXPIRED';
  console.log(code, wrong);

  const { data, response } = await purchase.getLimits().withResponse();
  const limits: { currency: string } = data;
  const requestId: string | undefined = response.requestId;
  console.log(limits, requestId, response.rateLimit.remaining);

  for await (const transaction of purchase.listTransactions({ status: 'completed' })) console.log(transaction.id);

  const event = constructEvent(raw, header, ['whsec_new', 'whsec_old']);
  if (event.type === 'batch.completed') console.log(event.data.payouts.length);
  if (event.type === 'transaction.completed') console.log(event.data.charge_minor);
}
`;

const TSCONFIG_BASE = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2023', 'dom'], types: [] as string[] };

describe('the SDK tarball in a fresh vendor folder', () => {
  let vendorDir: string;
  let gateway: ReturnType<typeof fakeGateway>;
  let baseUrl: string;
  const secret = 'whsec_current';
  const previousSecret = 'whsec_previous';
  let fixture: Record<string, string>;

  beforeAll(async () => {
    vendorDir = await mkdtemp(join(tmpdir(), 'za-sdk-vendor-'));
    // npm pack runs prepack (the package's own build) and writes the tarball into the vendor folder.
    await run('npm', ['pack', '--pack-destination', vendorDir, '--loglevel=error'], { cwd: SDK, timeout: 240_000 });
    const tarball = (await readdir(vendorDir)).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack wrote no tarball');
    await writeFile(join(vendorDir, 'package.json'), JSON.stringify({ name: 'vendor-app', version: '1.0.0', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', `./${tarball}`], { cwd: vendorDir, timeout: 240_000 });
    // No runtime dependencies: the tarball is all that is installed.
    expect((await readdir(join(vendorDir, 'node_modules'))).filter((name) => !name.startsWith('.'))).toEqual(['@za-gateway']);

    gateway = fakeGateway();
    await new Promise<void>((done) => gateway.server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}/api/v1`;

    // Deliveries as libs/webhooks signs them: JSON.stringify of { id, type, created_at, data }.
    const body = (type: string) => JSON.stringify({ id: randomUUID(), type, created_at: new Date().toISOString(), data: { id: randomUUID(), status: 'completed', charge_minor: 1260 } });
    const now = Math.floor(Date.now() / 1000);
    const fresh = body('transaction.completed');
    const old = body('transaction.completed');
    const rotated = body('transaction.completed');
    fixture = {
      secret,
      previousSecret,
      body: fresh,
      header: signatureHeader([secret], now, fresh),
      oldBody: old,
      oldHeader: signatureHeader([secret], now - 600, old),
      rotatedBody: rotated,
      // During a rotation's overlap the gateway signs with both secrets (two v1 values).
      rotatedHeader: signatureHeader([secret, previousSecret], now, rotated),
    };
  }, 600_000);

  afterAll(async () => {
    gateway?.server.closeAllConnections();
    await new Promise((done) => gateway?.server.close(done));
    if (vendorDir) await rm(vendorDir, { recursive: true, force: true });
  });

  it.each([
    ['ESM', 'check.mjs', "import * as sdk from '@za-gateway/sdk';"],
    ['CommonJS', 'check.cjs', "const sdk = require('@za-gateway/sdk');"],
  ])('under Node %s: timeout, abort, 429 after Retry-After, error kinds, pagination, webhooks', async (format, file, load) => {
    await writeFile(join(vendorDir, file), checks(load));
    const { stdout } = await run(process.execPath, [file], {
      cwd: vendorDir,
      env: { PATH: process.env.PATH, GATEWAY_URL: baseUrl, WEBHOOK_FIXTURE: JSON.stringify(fixture), SCENARIO: `${format}-${randomUUID()}` },
      timeout: 60_000,
    });
    const results = JSON.parse(stdout.trim().split('\n').pop()!);

    expect(results.timeout).toMatchObject({ name: 'GatewayTimeoutError', isTimeout: true, isBase: true });
    expect(results.timeout.ms).toBeGreaterThanOrEqual(250);
    expect(results.timeout.ms).toBeLessThan(3_000);
    expect(results.defaultTimeout.isTimeout).toBe(true);
    expect(results.defaultTimeout.ms).toBeLessThan(3_000);
    expect(results.abort.name).toBe('AbortError');
    expect(results.abort.ms).toBeLessThan(3_000);

    expect(results.rateLimit).toMatchObject({ services: 1, retries: [{ status: 429, delayMs: 1_000 }], requestId: 'string', limit: 120 });
    expect(results.rateLimit.ms).toBeGreaterThanOrEqual(1_000);
    expect(results.rateLimitError).toEqual({ isRateLimit: true, isApi: true, retryAfter: 1, code: 'API_RATE_LIMITED' });
    expect(results.conflict).toEqual({ idempotency: true, conflict: true, code: 'IDEMPOTENCY_CONFLICT', operation: 'createTransaction', typed: true });
    expect(results.authentication).toBe(true);

    expect(results.pagination).toEqual(['t-1', 't-2', 't-3', 't-4', 't-5']);
    const scenarioPages = [...gateway.hits.entries()].filter(([key]) => key.startsWith(format) && key.endsWith('GET /api/v1/transactions'));
    expect(scenarioPages).toEqual([[expect.any(String), 3]]);

    expect(results.webhook).toEqual({ type: 'transaction.completed', id: JSON.parse(fixture.body).id });
    expect(results.tampered).toBe('no_matching_signature');
    expect(results.old).toBe('timestamp_outside_tolerance');
    expect(results.wrongSecret).toBe('no_matching_signature');
    expect(results.rotation).toBe(JSON.parse(fixture.rotatedBody).id);
    expect(results.baseUrl).toMatch(/baseUrl is required/);
  }, 90_000);

  it.each([
    ['nodenext (ESM)', 'nodenext', 'nodenext', 'typed.ts'],
    ['nodenext (CommonJS)', 'nodenext', 'nodenext', 'typed.cts'],
    ['bundler', 'preserve', 'bundler', 'typed.ts'],
  ])('type-checks vendor code under %s: a misspelt error code is a compile error', async (_label, module, moduleResolution, file) => {
    const dir = join(vendorDir, `types-${moduleResolution}-${file.replace('.', '-')}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, file), TYPED);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...TSCONFIG_BASE, module, moduleResolution, typeRoots: [] }, files: [file] }));
    // The vendor folder's node_modules is the parent's: resolution walks up from `dir`.
    const result = await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: 120_000 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    // Every @ts-expect-error line is an error as expected, and nothing else is.
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);

    // Without the @ts-expect-error comments the misspelt codes are reported.
    await writeFile(join(dir, file), TYPED.replace(/^\s*\/\/ @ts-expect-error.*$/gm, ''));
    const strict = await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: 120_000 }).then(
      ({ stdout }) => stdout,
      (error: { stdout: string }) => error.stdout,
    );
    expect(strict).toMatch(/IDEMPOTENCY_CONFLICTT/);
    expect(strict).toMatch(/INSUFICIENT_FUNDS/);
    expect(strict).toMatch(/QUOTE_EXPIRED/);
  }, 180_000);
});
