#!/usr/bin/env node
/**
 * `npm run bench`: builds, starts the whole stack compiled and in production mode on its own
 * database, queue prefix and ports, seeds vendors through the operator CLI, drives every
 * scenario from a separate load process, runs the baselines, and writes
 * bench/results/<date>.json and docs/BENCHMARKS.md. Every process it starts is stopped, even
 * on failure. Settings: bench/lib/settings.mjs (BENCH_* environment variables).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { checkpointCounts, dropDatabase, query, recreateDatabase, serverSettings } from './lib/database.mjs';
import { explainHotQueries } from './lib/explain.mjs';
import { insertHistory } from './lib/history.mjs';
import { runPgbench } from './lib/pgbench.mjs';
import { ResourceSampler, Supervisor, backendCpuSeconds, readStatusKb, round } from './lib/processes.mjs';
import { newestProfile, summariseProfile } from './lib/profile.mjs';
import { budgetTable, writeReport } from './lib/report.mjs';
import { cloneQuotes, pickPurchaseProduct, seedVendors, templateQuotes } from './lib/seed.mjs';
import { readSettings } from './lib/settings.mjs';
import { insertLedgerLines, statementPagePaths, streamedDownload } from './lib/statement.mjs';

const execute = promisify(execFile);
const settings = readSettings();
const startedAt = new Date();
const stamp = startedAt.toISOString().slice(0, 19).replace(/:/g, '-');
// `*.tmp` under bench/results is git-ignored: logs, load specs, profiles of this run.
const work = resolve(`bench/results/${stamp}.tmp`);
mkdirSync(work, { recursive: true });
const supervisor = new Supervisor(work);
const clock = Date.now();
const log = (message) => console.error(`[bench +${Math.round((Date.now() - clock) / 1000)}s] ${message}`);

const urls = {
  purchase: `http://127.0.0.1:${settings.ports.purchase}`,
  payout: `http://127.0.0.1:${settings.ports.payout}`,
  worker: `http://127.0.0.1:${settings.ports.worker}`,
  sandbox: `http://127.0.0.1:${settings.ports.sandbox}`,
  plain: `http://127.0.0.1:${settings.ports.plain}`,
};

/** Velocity stays checked on every admission but never binds: see docs/BENCHMARKS.md. */
settings.velocityCount = 1_000_000;
settings.velocityWindowSeconds = 60;

const sandboxKey = 'bench-sandbox-key';
/** A clean environment: nothing from the developer's shell leaks into the measured processes. */
/**
 * The apps run with the NODE_OPTIONS they are deployed with (the Kubernetes ConfigMap).
 * BENCH_NODE_OPTIONS replaces them for a trial of other V8 flags before the ConfigMap changes.
 */
const deployedNodeOptions =
  process.env.BENCH_NODE_OPTIONS ?? readFileSync('k8s/base/kustomization.yaml', 'utf8').match(/^\s*- NODE_OPTIONS=(.*)$/m)?.[1] ?? '';
const baseEnv = {
  PATH: process.env.PATH,
  NODE_OPTIONS: deployedNodeOptions,
  HOME: process.env.HOME ?? os.homedir(),
  LANG: process.env.LANG ?? 'C.UTF-8',
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  APP_ENV: 'development',
  DATABASE_URL: settings.databaseUrl,
  DATABASE_POOL_SIZE: String(settings.databasePoolSize),
  REDIS_URL: settings.redisUrl,
  QUEUE_PREFIX: settings.queuePrefix,
  WORKER_CONCURRENCY: String(settings.workerConcurrency),
  PURCHASE_PROVIDER_BASE_URL: `${urls.sandbox}/dvs/v1`,
  PURCHASE_PROVIDER_API_KEY: sandboxKey,
  PAYOUT_PROVIDER_BASE_URL: urls.sandbox,
  PAYOUT_PROVIDER_API_KEY: sandboxKey,
  SANDBOX_API_KEY: sandboxKey,
  CALLBACK_BASE_URL: `${urls.purchase}/api/v1/provider/callback`,
  CALLBACK_TOKEN: randomBytes(32).toString('hex'),
  ENCRYPTION_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
  ENCRYPTION_ACTIVE_KEY_ID: 'bench1',
  RATE_LIMIT_READ_PER_MINUTE: '100000000',
  RATE_LIMIT_WRITE_PER_MINUTE: '100000000',
};

const APPS = {
  'provider-sandbox': { entry: 'dist/apps/provider-sandbox/src/main.js', port: settings.ports.sandbox, health: `${urls.sandbox}/health/live` },
  'purchase-gateway': { entry: 'dist/apps/purchase-gateway/src/main.js', port: settings.ports.purchase, health: `${urls.purchase}/health/ready` },
  'payout-gateway': { entry: 'dist/apps/payout-gateway/src/main.js', port: settings.ports.payout, health: `${urls.payout}/health/ready` },
  'reconciliation-worker': { entry: 'dist/apps/reconciliation-worker/src/main.js', port: settings.ports.worker, health: `${urls.worker}/health/ready` },
};

async function startApp(name, { env = {}, nodeOptions = [] } = {}) {
  const app = APPS[name];
  supervisor.start(name, [...nodeOptions, app.entry], { ...baseEnv, PORT: String(app.port), ...env });
  await supervisor.waitForHttp(name, app.health);
}

async function startPlainBaseline() {
  supervisor.start('plain-admission-server', ['bench/baselines/plain-admission-server.mjs'], { ...baseEnv, PORT: String(settings.ports.plain) });
  await supervisor.waitForHttp('plain-admission-server', `${urls.plain}/health`);
}

/** Running measured processes, name -> pid. */
function measuredProcesses() {
  const names = [...Object.keys(APPS), 'plain-admission-server'];
  return new Map(names.filter((name) => supervisor.pidOf(name)).map((name) => [name, supervisor.pidOf(name)]));
}

let specCounter = 0;
/** One autocannon run in a separate process, with the resources of every stack process sampled meanwhile. */
async function loadScenario(id, title, spec, extra = {}) {
  const file = `${work}/spec-${++specCounter}-${id}.json`;
  const full = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds, sampleErrors: true, ...spec };
  writeFileSync(file, JSON.stringify(full));
  const sampler = new ResourceSampler(measuredProcesses());
  log(`${id}: ${title} (${full.connections} connections, ${full.warmupSeconds}+${full.durationSeconds} s)`);
  sampler.start();
  const output = await supervisor.runNode(`load-${id}`, ['bench/load/driver.mjs', file], baseEnv, `${work}/load-${id}.json`);
  const resources = sampler.stop();
  const result = JSON.parse(output);
  if (result.items_exhausted && !full.allowWrap) result.invalid = 'the pre-made items ran out: requests were repeated; raise BENCH_MAX_RATE';
  log(
    `${id}: ${result.throughput_per_second}/s, p50 ${result.latency_ms.p50} ms, p95 ${result.latency_ms.p95} ms, p99 ${result.latency_ms.p99} ms, errors ${result.errors}` +
      (result.errors ? ` ${JSON.stringify(result.status_counts)} ${JSON.stringify(result.error_samples).slice(0, 400)}` : ''),
  );
  return { id, title, kind: 'http', request: spec.describe, ...result, resources, ...extra };
}

async function build() {
  if (settings.skipBuild) return log('build skipped (BENCH_SKIP_BUILD=1)');
  log('building (tsc -p tsconfig.build.json)');
  await execute('npx', ['tsc', '-p', 'tsconfig.build.json'], { maxBuffer: 64 * 1024 * 1024 });
}

async function ensureServices() {
  log('PostgreSQL, Redis and pgbench');
  await execute('bash', ['scripts/ensure-services.sh'], { env: { ...process.env, DATABASE_URL: settings.databaseUrl, REDIS_URL: settings.redisUrl } });
  await execute('bash', ['bench/ensure-pgbench.sh']);
}

/** Jobs due within this many seconds count as the previous scenario's work still to come. */
const DUE_SOON_S = 10;

/**
 * Waits (at most `maxSeconds`) until the payout work a scenario left behind is done: no payout
 * job in the outbox or the payout queues that is due within DUE_SOON_S, waiting or active (later
 * polls of paid payouts, minutes apart, are left to run).
 * A cash payout's first status poll runs 15 s after it was sent, so without this the next
 * scenario would share the machine with thousands of polls of the previous one.
 */
async function settlePayoutWork(maxSeconds) {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const started = performance.now();
  let pending;
  try {
    do {
      const [outbox] = await query(
        settings.databaseUrl,
        `SELECT count(*)::int AS n FROM outbox_messages WHERE dispatched_at IS NULL AND job_name LIKE 'payout.%' AND run_at <= now() + interval '${DUE_SOON_S} seconds'`,
      );
      // BullMQ scores a delayed job by its due time in ms times 4096 (the low 12 bits order jobs due in the same ms).
      const dueSoon = (Date.now() + DUE_SOON_S * 1000) * 4096;
      let queued = 0;
      for (const queue of ['payout-status', 'payout-batch']) {
        const key = `${settings.queuePrefix}:${queue}`;
        queued += (await redis.zcount(`${key}:delayed`, 0, dueSoon)) + (await redis.llen(`${key}:wait`)) + (await redis.llen(`${key}:active`)) + (await redis.zcard(`${key}:prioritized`));
      }
      pending = outbox.n + queued;
      if (pending === 0) break;
      await sleep(500);
    } while (performance.now() - started < maxSeconds * 1000);
  } finally {
    await redis.quit();
  }
  const waited = round((performance.now() - started) / 1000, 1);
  log(pending === 0 ? `payout work settled after ${waited} s` : `payout work still pending after ${waited} s: ${pending} jobs`);
  return { waited_seconds: waited, pending_jobs: pending };
}

/** Stale jobs of an aborted earlier run must not reach this run's worker. */
async function clearBenchQueues() {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let cursor = '0';
  let removed = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${settings.queuePrefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) removed += await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
  if (removed) log(`removed ${removed} stale ${settings.queuePrefix} keys from Redis`);
}

async function migrate() {
  await recreateDatabase(settings.pgBase, settings.database);
  await execute(process.execPath, ['dist/libs/database/src/migrate.js'], { env: baseEnv });
}

// ---- scenarios -------------------------------------------------------------------------------

const PAYOUT_TEMPLATE = {
  amount: '200.00',
  currency: 'ZAR',
  method: 'bank_a_instant_money',
  // Test value "55": the sandbox pays at once.
  recipient: { first_name: 'Thandi', surname: 'Mokoena', phone: '27821234555', id_type: 'RSAID', id_number: '8001015009087', country_of_issue: 'ZA', nationality: 'ZA' },
};

function purchaseQuotaPerVendor() {
  return Math.ceil((settings.maxRate * (settings.durationSeconds + settings.warmupSeconds)) / settings.vendors);
}

async function purchaseScenario(id, title, vendors, base, label, extra = {}) {
  const items = await cloneQuotes(settings.databaseUrl, vendors, purchaseQuotaPerVendor(), label);
  return loadScenario(
    id,
    title,
    { url: base, kind: 'purchase', path: base.startsWith(urls.plain) ? '/transactions' : '/api/v1/transactions', items, expectStatus: [202], describe: 'POST /transactions, a new quote and Idempotency-Key per request, vendors interleaved' },
    extra,
  );
}

/**
 * The admission's knee: POST /transactions at fixed, evenly spaced arrival rates (open loop, as
 * many vendors send, not 32 connections as fast as answers come), worker stopped, each rate for a
 * short window. The knee is the highest rate whose p99 stays under 50 ms while the rate is reached.
 */
async function admissionKnee(vendors) {
  const steps = [];
  for (const rate of settings.kneeRates) {
    const items = await cloneQuotes(settings.databaseUrl, vendors, Math.ceil((rate * (settings.kneeSeconds + 2) * 1.2) / vendors.length), `knee${rate}`);
    const run = await loadScenario(`knee-${rate}`, `POST /transactions at ${rate}/s (open loop)`, {
      url: urls.purchase,
      kind: 'purchase',
      path: '/api/v1/transactions',
      items,
      expectStatus: [202],
      warmupSeconds: 2,
      durationSeconds: settings.kneeSeconds,
      overallRate: rate,
      arrivals: 'uniform',
      describe: `POST /api/v1/transactions at ${rate}/s (open loop, evenly spaced), worker stopped`,
    });
    const reached = run.throughput_per_second >= 0.95 * rate;
    steps.push({ rate, throughput_per_second: run.throughput_per_second, latency_ms: run.latency_ms, errors: run.errors, reached, under_50_ms: reached && run.errors === 0 && run.latency_ms.p99 < 50 });
    if (!reached) break;
  }
  const knee = steps.filter((step) => step.under_50_ms).map((step) => step.rate).pop() ?? null;
  log(`admission knee: ${knee === null ? 'none of the rates tried' : `${knee}/s`} with p99 < 50 ms (${steps.map((step) => `${step.rate}/s p99 ${step.latency_ms.p99}`).join(', ')})`);
  return { id: 'admission-knee', title: 'POST /transactions at fixed rates: the knee (p99 < 50 ms)', kind: 'knee', knee_per_second: knee, steps };
}

async function admittedItems(vendors, label) {
  const tokenOf = new Map(vendors.map((vendor) => [vendor.id, vendor.purchaseToken]));
  const rows = await query(
    settings.databaseUrl,
    `SELECT k.vendor_id, k.idempotency_key, k.quote_id, k.reference, k.transaction_id FROM purchase_idempotency_keys k WHERE k.idempotency_key LIKE $1`,
    [`key-${label}-%`],
  );
  return rows.map((row) => ({ token: tokenOf.get(row.vendor_id), key: row.idempotency_key, quoteId: row.quote_id, reference: row.reference, transactionId: row.transaction_id }));
}

/** One connection for the harness's own polling: a new connection per poll would fork a backend each time. */
async function withPoller(action) {
  const client = new pg.Client({ connectionString: settings.databaseUrl });
  await client.connect();
  try {
    return await action(async (sql, parameters = []) => (await client.query(sql, parameters)).rows);
  } finally {
    await client.end();
  }
}

/**
 * Statement reads: every vendor's account gets `statementRows` ledger lines, then GET
 * /api/v1/statement pages of 50 (the first `statementPages` of each vendor, by the cursors the
 * API hands out) are read at the usual connections, tokens of every vendor in turn.
 */
async function statementReadScenario(vendors) {
  log(`statement: ${settings.statementRows} ledger lines for each of ${vendors.length} vendors`);
  for (const vendor of vendors) await insertLedgerLines(settings.databaseUrl, vendor.id, settings.statementRows);
  const items = [];
  for (const vendor of vendors) {
    for (const path of await statementPagePaths(urls.payout, vendor.payoutToken, settings.statementPages, 50)) items.push([vendor.payoutToken, path]);
  }
  return loadScenario('statement-reads', 'GET /api/v1/statement (pages of 50)', {
    url: urls.payout,
    kind: 'get',
    items,
    allowWrap: true,
    expectStatus: [200],
    describe: `GET /api/v1/statement?per_page=50, the first ${settings.statementPages} pages (by cursor) of each vendor's statement of ${settings.statementRows}+ lines, tokens of every vendor in turn`,
  }, { ledger_lines_per_vendor: settings.statementRows, pages: items.length });
}

/**
 * One large export: a vendor with `exportRows` more ledger lines downloads its whole statement
 * (GET /api/v1/exports/statement) as one client reading as fast as it can; lines per second from
 * the request to the last byte, and the payout gateway's peak RSS meanwhile (VmHWM reset at the start).
 */
async function statementExportScenario(vendors) {
  const vendor = vendors[0];
  log(`export: ${settings.exportRows} more ledger lines for vendor ${vendor.id}`);
  await insertLedgerLines(settings.databaseUrl, vendor.id, settings.exportRows);
  const gatewayPid = supervisor.pidOf('payout-gateway');
  const rssBeforeMb = round((readStatusKb(gatewayPid, 'VmRSS') ?? 0) / 1024, 1);
  const sampler = new ResourceSampler(measuredProcesses());
  sampler.start();
  const download = await streamedDownload(`${urls.payout}/api/v1/exports/statement`, vendor.payoutToken);
  const resources = sampler.stop();
  const result = {
    id: 'statement-export',
    title: 'GET /api/v1/exports/statement, one large export',
    kind: 'export',
    lines: download.lines,
    bytes: download.bytes,
    seconds: round(download.seconds, 2),
    first_byte_ms: round(download.firstByteMs, 1),
    rows_per_second: round(download.lines / download.seconds, 0),
    gateway_rss_before_mb: rssBeforeMb,
    gateway_peak_rss_mb: resources.processes['payout-gateway']?.peak_rss_mb,
    errors: 0,
    resources,
  };
  log(`export: ${result.lines} lines in ${result.seconds} s = ${result.rows_per_second} lines/s; payout-gateway RSS ${rssBeforeMb} MB before, peak ${result.gateway_peak_rss_mb} MB`);
  return result;
}

async function batchScenario(vendors) {
  return withPoller((poll) => batchRounds(vendors, poll));
}

async function batchRounds(vendors, poll) {
  const batches = [];
  const sampler = new ResourceSampler(measuredProcesses());
  sampler.start();
  for (let round_ = 0; round_ < settings.batches; round_++) {
    const vendor = vendors[round_ % vendors.length];
    const reference = `batch-${stamp}-${round_}`;
    const payouts = Array.from({ length: settings.batchItems }, (_, index) => ({ ...PAYOUT_TEMPLATE, reference: `${reference}-item-${index}` }));
    const body = JSON.stringify({ reference, payouts });
    const started = performance.now();
    const response = await fetch(`${urls.payout}/api/v1/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vendor.payoutToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const answer = await response.json();
    const acceptedMs = performance.now() - started;
    if (response.status !== 202) throw new Error(`batch refused: ${response.status} ${JSON.stringify(answer).slice(0, 500)}`);
    const batchId = answer.data.id;
    let paid = 0;
    let paidMs = null;
    while (performance.now() - started < 60_000) {
      const [row] = await poll(
        `SELECT count(*) FILTER (WHERE status = 'paid')::int AS paid, count(*) FILTER (WHERE status NOT IN ('paid', 'pending'))::int AS other FROM payouts WHERE batch_id = $1`,
        [batchId],
      );
      paid = row.paid;
      if (paid + row.other >= settings.batchItems) {
        paidMs = performance.now() - started;
        break;
      }
      await sleep(50);
    }
    batches.push({ items: settings.batchItems, request_bytes: Buffer.byteLength(body), accepted_ms: round(acceptedMs, 1), all_paid_ms: paidMs === null ? null : round(paidMs, 0), paid, not_paid: settings.batchItems - paid });
    log(`batch ${round_ + 1}: accepted in ${round(acceptedMs, 1)} ms, ${paid}/${settings.batchItems} paid after ${paidMs === null ? 'timeout' : `${round(paidMs, 0)} ms`}`);
  }
  const resources = sampler.stop();
  const accepted = batches.map((batch) => batch.accepted_ms).sort((a, b) => a - b);
  const paidTimes = batches.map((batch) => batch.all_paid_ms ?? Infinity).sort((a, b) => a - b);
  return {
    id: 'batch-500',
    title: 'POST /api/v1/batches with 500 cash payouts, then every item paid',
    kind: 'batch',
    batches,
    accepted_ms_median: accepted[Math.floor(accepted.length / 2)],
    accepted_ms_max: accepted[accepted.length - 1],
    all_paid_ms_median: paidTimes[Math.floor(paidTimes.length / 2)],
    all_paid_ms_max: paidTimes[paidTimes.length - 1],
    errors: batches.reduce((sum, batch) => sum + batch.not_paid, 0),
    resources,
  };
}

/**
 * Worker throughput: the purchases admitted while the worker was stopped are a backlog with
 * their outbox rows undispatched. The worker starts; each purchase is relayed, submitted
 * (lookup, claim, create), completed by the sandbox, and verified (callback and scheduled
 * lookups, outcome recorded under the row lock). Counted from PostgreSQL: status events
 * `pending -> completed` per second, from the moment the worker is ready.
 */
/**
 * Lookups that found the purchase at the provider (purchase_provider_lookups_total{result="found"})
 * of the running worker; the "not found" lookups that precede a create are not verifications.
 */
async function workerLookups() {
  const text = await (await fetch(`${urls.worker}/metrics`)).text();
  return Number(/^purchase_provider_lookups_total\{result="found"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * Verification on its own: lookups of purchases that are already submitted and completed, as
 * staff rechecks or a burst of callbacks cause them. Each job reads the row, GETs the provider
 * and records what it said under the row lock; nothing is submitted meanwhile (the submission
 * backlog is marked attempted in PostgreSQL, and scheduled checks and open markers are set aside,
 * since the worker claims all three from there).
 */
async function verificationScenario() {
  await clearBenchQueues();
  // Jobs of earlier scenarios the relay had not reached when the worker stopped (callback hints)
  // would run in the window too; they are dropped like the ones in Redis.
  const leftovers = await query(
    settings.databaseUrl,
    `WITH dropped AS (UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL RETURNING job_name)
     SELECT job_name, count(*)::int AS rows FROM dropped GROUP BY job_name`,
  );
  if (leftovers.length) log(`verifications: dropped undispatched outbox rows of earlier scenarios: ${leftovers.map((row) => `${row.job_name} ${row.rows}`).join(', ')}`);
  // The worker claims submissions, due checks and callback markers from PostgreSQL: the
  // submission backlog is marked attempted with an unknown outcome (out of the claims' index, no
  // check scheduled; leasing it instead left 140,000 leased rows for every claim round to step
  // over), the chains' checks and the open markers are set aside, so the window holds the queued
  // lookups only.
  const [setAside] = await query(
    settings.databaseUrl,
    `WITH leased AS (UPDATE purchase_transactions SET submission_attempted_at = now(), submission_ended_at = now(), submission_outcome = 'unknown'
                      WHERE status = 'pending' AND submission_attempted_at IS NULL AND provider_transaction_id IS NULL RETURNING 1),
          unchecked AS (UPDATE purchase_transactions SET next_check_at = NULL WHERE next_check_at IS NOT NULL AND (status <> 'pending' OR submission_attempted_at IS NOT NULL) RETURNING 1),
          answered AS (UPDATE purchase_callback_markers SET processed_at = now() WHERE processed_at IS NULL RETURNING 1)
     SELECT (SELECT count(*) FROM leased)::int AS leased, (SELECT count(*) FROM unchecked)::int AS unchecked, (SELECT count(*) FROM answered)::int AS answered`,
  );
  log(`verifications: set aside ${setAside.leased} unsubmitted purchases, ${setAside.unchecked} scheduled checks, ${setAside.answered} open callback markers`);
  const rounds = settings.verifyRounds;
  const [{ jobs }] = await query(
    settings.databaseUrl,
    `WITH queued AS (
       INSERT INTO outbox_messages (job_name, job_id, payload, run_at)
       SELECT 'purchase.verify', 'verify.' || t.id || '.bench.' || r, jsonb_build_object('transactionId', t.id, 'reason', 'manual'), now()
         FROM purchase_transactions t CROSS JOIN generate_series(1, $1::int) r
        WHERE t.status = 'completed' AND t.created_at > now() - interval '1 hour'
       RETURNING 1)
     SELECT count(*)::int AS jobs FROM queued`,
    [rounds],
  );
  log(`verifications: ${jobs} lookups of completed purchases queued (${rounds} per purchase)`);
  const sampler = new ResourceSampler(new Map());
  await startApp('reconciliation-worker');
  const ready = performance.now();
  sampler.processes = measuredProcesses();
  sampler.start();
  const samples = [];
  let done = 0;
  while (performance.now() - ready < settings.workerSeconds * 1000 && done < jobs) {
    await sleep(500);
    done = await workerLookups();
    samples.push({ t: round((performance.now() - ready) / 1000, 2), lookups: done });
  }
  const resources = sampler.stop();
  await supervisor.stop('reconciliation-worker');
  const first = samples.find((sample) => sample.lookups > 0);
  const last = samples[samples.length - 1];
  const steady = first && last.t > first.t ? (last.lookups - first.lookups) / (last.t - first.t) : 0;
  return {
    id: 'worker-verifications-only',
    title: 'Worker: verification lookups of completed purchases',
    kind: 'worker',
    queued: jobs,
    lookups_in_window: last.lookups,
    window_seconds: last.t,
    throughput_per_second: round(steady, 1),
    samples: samples.filter((_, index) => index % 4 === 0 || index === samples.length - 1),
    errors: 0,
    resources,
  };
}

async function workerScenario() {
  return withPoller((poll) => workerDrain(poll));
}

async function workerDrain(poll) {
  const [backlog] = await query(settings.databaseUrl, `SELECT count(*)::int AS pending FROM purchase_transactions WHERE status = 'pending'`);
  const [{ max_event }] = await query(settings.databaseUrl, `SELECT COALESCE(max(id), 0)::bigint AS max_event FROM purchase_transaction_events`);
  const sampler = new ResourceSampler(new Map());
  log(`worker: starting on a backlog of ${backlog.pending} pending purchases (at most ${settings.workerSeconds} s)`);
  const profileDirectory = `${work}/profile-worker`;
  mkdirSync(profileDirectory, { recursive: true });
  // Profiled when profiles are on (the evidence for this target); the profiler's overhead is in the figure.
  await startApp('reconciliation-worker', settings.profile ? { nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`] } : {});
  const ready = performance.now();
  const readyMicros = Number(process.hrtime.bigint() / 1000n);
  sampler.processes = measuredProcesses();
  sampler.start();
  const samples = [];
  let completed = 0;
  while (performance.now() - ready < settings.workerSeconds * 1000) {
    await sleep(500);
    const [row] = await poll(
      `SELECT count(*) FILTER (WHERE to_status = 'completed')::int AS completed, count(*)::int AS events FROM purchase_transaction_events WHERE id > $1`,
      [max_event],
    );
    completed = row.completed;
    samples.push({ t: round((performance.now() - ready) / 1000, 2), completed });
    if (completed >= backlog.pending) break;
  }
  const resources = sampler.stop();
  const endMicros = Number(process.hrtime.bigint() / 1000n);
  await supervisor.stop('reconciliation-worker');
  const profileFile = settings.profile ? newestProfile(profileDirectory) : null;
  if (profileFile) results.profiles.worker = { id: 'worker', run: { note: 'the worker scenario itself' }, ...summariseProfile(profileFile, { window: [readyMicros, endMicros] }) };
  const elapsed = samples[samples.length - 1].t;
  // Steady rate: between the first sample with any completion and the last one, excluding the start-up ramp.
  const first = samples.find((sample) => sample.completed > 0);
  const steady = first && elapsed > first.t ? (completed - first.completed) / (elapsed - first.t) : 0;
  const [outcomes] = await query(
    settings.databaseUrl,
    `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'pending')::int AS pending,
            count(*) FILTER (WHERE submission_attempted_at IS NOT NULL)::int AS submitted,
            count(*) FILTER (WHERE status NOT IN ('completed', 'pending'))::int AS other FROM purchase_transactions WHERE created_at > now() - interval '1 hour'`,
  );
  return {
    id: 'worker-verifications',
    title: 'Worker: backlog of admitted purchases submitted and verified to completed',
    kind: 'worker',
    backlog: backlog.pending,
    completed_in_window: completed,
    window_seconds: elapsed,
    drained: completed >= backlog.pending,
    throughput_per_second: round(steady, 1),
    overall_per_second: round(completed / elapsed, 1),
    first_completion_after_seconds: first?.t ?? null,
    samples: samples.filter((_, index) => index % 4 === 0 || index === samples.length - 1),
    final_statuses_last_hour: outcomes,
    errors: outcomes.other,
    resources,
  };
}

/**
 * Sustained capacity: with the worker running, new purchases arrive at a fixed rate (open loop:
 * autocannon's overallRate) for BENCH_SUSTAINED_S seconds, and the backlog (purchases of this
 * step not yet final) is sampled every second. A rate is sustained when the worker completes
 * purchases as fast as they arrive and the backlog stays flat. Several rates are tried (see
 * settings) and the highest sustained one is the system's capacity on this machine; the CPU per
 * completed purchase of each process says what it would be with the sandbox (a provider that runs
 * elsewhere) off the machine.
 */
async function sustainedScenario(vendors) {
  const instrumented = settings.roundTrips || settings.sustainedProfile;
  if (!instrumented) return withPoller((poll) => sustainedSteps(vendors, poll));
  // Restarted with the round-trip counter and/or the profiler for the steps only, then restarted plain.
  const directory = `${work}/profile-sustained`;
  mkdirSync(directory, { recursive: true });
  const countsFile = `${work}/round-trips-worker.json`;
  const nodeOptions = [
    ...(settings.roundTrips ? ['--require', resolve('bench/lib/round-trips.cjs')] : []),
    ...(settings.sustainedProfile ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : []),
  ];
  await supervisor.stop('reconciliation-worker');
  await startApp('reconciliation-worker', { nodeOptions, env: { ROUND_TRIPS_FILE: countsFile } });
  const startedMicros = Number(process.hrtime.bigint() / 1000n);
  const result = await withPoller((poll) => sustainedSteps(vendors, poll));
  const endMicros = Number(process.hrtime.bigint() / 1000n);
  await supervisor.stop('reconciliation-worker');
  await startApp('reconciliation-worker');
  // Every purchase of the steps that reached a final status, the drains after each step included, as the counts are.
  const [{ completed }] = await query(
    settings.databaseUrl,
    `SELECT count(*)::int AS completed FROM purchase_transactions WHERE status <> 'pending' AND created_at >= $1`,
    [result.steps[0].since],
  );
  if (settings.roundTrips) result.round_trips = roundTripsPerPurchase(JSON.parse(readFileSync(countsFile, 'utf8')), completed);
  const profile = settings.sustainedProfile ? newestProfile(directory) : null;
  if (profile) results.profiles.sustained_worker = { id: 'sustained-worker', run: { note: 'the worker during the sustained steps' }, ...summariseProfile(profile, { window: [startedMicros, endMicros] }) };
  return result;
}

/** The counts of the instrumented worker (bench/lib/round-trips.cjs) per completed purchase. */
function roundTripsPerPurchase(counts, completed) {
  const per = (map) =>
    Object.fromEntries(
      Object.entries(map)
        .filter(([, count]) => count / completed >= 0.05)
        .map(([key, count]) => [key, round(count / completed, 2)]),
    );
  const total = (map) => round(Object.values(map).reduce((sum, count) => sum + count, 0) / completed, 1);
  return {
    completed_purchases: completed,
    note: 'whole worker process during the sustained steps (outbox relay, sweeper and every job included), divided by purchases completed in them',
    sql_statements_per_purchase: total(counts.statements),
    redis_round_trips_per_purchase: total(counts.redis_commands),
    statements: per(counts.statements),
    redis_commands: per(counts.redis_commands),
  };
}

/**
 * The next rate of the ladder: ×1.4 while every step is sustained; once one is not, halfway
 * between the highest sustained rate and the lowest one that was not (bisection, so the highest
 * sustained rate is found to within 8 %, not to the ladder's 40 %); with no sustained step yet,
 * just under what the worker completed. Null when the interval is that narrow already.
 */
function nextSustainedRate(steps) {
  const best = Math.max(0, ...steps.filter((done) => done.sustained).map((done) => done.rate));
  const failed = steps.filter((done) => !done.sustained).map((done) => done.rate);
  if (failed.length === 0) return Math.round(best * 1.4);
  const lowestFailed = Math.min(...failed);
  const next = best > 0 ? Math.round((best + lowestFailed) / 2) : Math.round(steps.at(-1).steady_completion_per_second * 0.9);
  if (best > 0 && (lowestFailed - best) / best < 0.08) return null;
  return next > best && next < lowestFailed && !steps.some((done) => done.rate === next) ? next : null;
}

async function sustainedSteps(vendors, poll) {
  const steps = [];
  const planned = settings.sustainedRates.length ? [...settings.sustainedRates] : null;
  let rate = planned ? planned.shift() : settings.sustainedStartRate;
  for (let index = 0; rate && index < (planned ? settings.sustainedRates.length : settings.sustainedSteps); index++) {
    const step = await sustainedStep(vendors, poll, rate, index);
    steps.push(step);
    log(
      `sustained ${rate}/s: arrived ${step.arrival_per_second}/s, completed ${step.completion_per_second}/s (steady ${step.steady_completion_per_second}/s), ` +
        `backlog ${step.backlog_start} -> ${step.backlog_end} (slope ${step.backlog_slope_per_second}/s), ${step.sustained ? 'sustained' : 'NOT sustained'}; ` +
        `worker ${step.cpu_ms_per_completed['reconciliation-worker']} ms, sandbox ${step.cpu_ms_per_completed['provider-sandbox']} ms, ` +
        `without the sandbox ${step.system_cpu_ms_per_completed_without_sandbox} ms CPU per completed purchase; load average ${os.loadavg()[0].toFixed(2)}`,
    );
    await drainBacklog(poll, step.since);
    if (planned) rate = planned.shift();
    else rate = nextSustainedRate(steps);
  }
  const sustained = steps.filter((step) => step.sustained);
  const best = sustained.length ? sustained.reduce((a, b) => (b.arrival_per_second > a.arrival_per_second ? b : a)) : null;
  // Without a sustained step, the step that completed most: one that completed nothing has no CPU per purchase.
  const basis = best ?? steps.reduce((a, b) => (b.completed > a.completed ? b : a));
  return {
    id: 'sustained',
    title: `Sustained capacity: purchases arriving at a fixed rate for ${settings.sustainedSeconds} s, worker running`,
    kind: 'sustained',
    steps,
    highest_sustained_per_second: best?.arrival_per_second ?? null,
    cpu_ms_per_completed: basis.cpu_ms_per_completed,
    system_cpu_ms_per_completed_without_sandbox: basis.system_cpu_ms_per_completed_without_sandbox,
    capacity_without_sandbox_per_second: basis.capacity_without_sandbox_per_second,
    errors: steps.reduce((sum, step) => sum + step.errors, 0),
  };
}

async function sustainedStep(vendors, poll, rate, index) {
  const seconds = settings.sustainedSeconds;
  const items = await cloneQuotes(settings.databaseUrl, vendors, Math.ceil((rate * seconds * 1.2) / settings.vendors) + 10, `sus${index}`);
  const [{ since }] = await poll('SELECT now() AS since');
  // By vendor, so purchase_transactions_vendor_created_idx answers it: with created_at alone the
  // count scanned the whole table every second (9.6 ms at 27,000 purchases, more with each step),
  // PostgreSQL CPU that the step then charged to its own purchases.
  const vendorIds = vendors.map((vendor) => vendor.id);
  const backlogSince = async () =>
    (
      await poll(
        `SELECT count(*)::int AS arrived, count(*) FILTER (WHERE status = 'pending')::int AS backlog FROM purchase_transactions
          WHERE vendor_id = ANY($2::uuid[]) AND created_at >= $1`,
        [since, vendorIds],
      )
    )[0];
  const samples = [];
  const started = performance.now();
  let loading = true;
  const sampling = (async () => {
    while (loading) {
      await sleep(1000 - ((performance.now() - started) % 1000));
      const row = await backlogSince();
      samples.push({ t: round((performance.now() - started) / 1000, 1), arrived: row.arrived, backlog: row.backlog, completed: row.arrived - row.backlog });
    }
  })();
  const run = await loadScenario(`sustained-${rate}`, `POST /transactions at ${rate}/s, worker running`, {
    url: urls.purchase,
    kind: 'purchase',
    path: '/api/v1/transactions',
    items,
    expectStatus: [202],
    warmupSeconds: 0,
    durationSeconds: seconds,
    overallRate: rate,
    arrivals: 'uniform',
    describe: `POST /api/v1/transactions at ${rate}/s (open loop, evenly spaced) while the worker submits and verifies`,
  });
  loading = false;
  await sampling;
  const last = samples[samples.length - 1];
  // The first 10 s are the ramp (the first purchases are still in their first verification).
  const steadySamples = samples.filter((sample) => sample.t >= Math.min(10, seconds / 3));
  const first = steadySamples[0] ?? samples[0];
  const steadyCompletion = last.t > first.t ? (last.completed - first.completed) / (last.t - first.t) : 0;
  const steadyArrival = last.t > first.t ? (last.arrived - first.arrived) / (last.t - first.t) : 0;
  const slope = slopeOf(steadySamples.map((sample) => [sample.t, sample.backlog]));
  const resources = run.resources;
  const perCompleted = (cpuSeconds) => (last.completed > 0 && cpuSeconds !== null ? round((cpuSeconds * 1000) / last.completed, 2) : null);
  const cpu = Object.fromEntries(Object.entries(resources.processes).map(([name, process_]) => [name, perCompleted(process_.cpu_seconds)]));
  cpu.postgres = perCompleted(resources.postgres_cpu_share_of_one_core * resources.wall_seconds);
  cpu.redis = perCompleted(resources.redis_cpu_share_of_one_core * resources.wall_seconds);
  // Everything the system runs on this machine for one purchase, the sandbox (provider) and the load generator (vendors) left out.
  const systemMs = ['purchase-gateway', 'reconciliation-worker', 'postgres', 'redis'].reduce((sum, name) => sum + (cpu[name] ?? 0), 0);
  return {
    rate,
    since,
    seconds,
    completed: last.completed,
    arrival_per_second: round(last.arrived / last.t, 1),
    completion_per_second: round(last.completed / last.t, 1),
    steady_arrival_per_second: round(steadyArrival, 1),
    steady_completion_per_second: round(steadyCompletion, 1),
    backlog_start: first.backlog,
    backlog_end: last.backlog,
    backlog_slope_per_second: round(slope, 2),
    // Completions keep up (within 5 %) and the backlog grows by less than 5 % of the arrival rate per second.
    sustained: steadyCompletion >= 0.95 * steadyArrival && slope <= 0.05 * steadyArrival && run.errors === 0,
    admission_latency_ms: run.latency_ms,
    errors: run.errors,
    cpu_ms_per_completed: cpu,
    system_cpu_ms_per_completed_without_sandbox: round(systemMs, 2),
    capacity_without_sandbox_per_second: systemMs > 0 ? round((os.cpus().length * 1000) / systemMs, 0) : null,
    machine_busy_share: resources.machine_busy_share,
    resources,
    samples: samples.filter((_, at) => at % 5 === 0 || at === samples.length - 1),
  };
}

// ---- Per-purchase cost budget ------------------------------------------------------------------

/**
 * The paths a purchase takes from admission to `completed`, chosen by the sandbox's test value
 * (the last two digits of the credit party number; README "Sandbox test values").
 */
const BUDGET_PATHS = [
  { id: 'callback_first', mobile: null, describe: 'callback first: the sandbox completes after 1 s and calls back; the chain\'s first poll (2 s) is superseded' },
  { id: 'poll_first', mobile: '27821234507', describe: 'poll first (test value 07): no callback; the chain\'s first poll finds it completed' },
  { id: 'both', mobile: '27821234506', describe: 'both (test value 06): the callback (1 s) is ahead of the provider\'s GET, its lookup finds it submitted; a later poll completes it' },
];

/**
 * BENCH_ONLY=budget: what one purchase costs from admission to `completed` with its webhook
 * event, per path: SQL statements and Redis commands of the gateway and the worker, HTTP requests
 * to the provider and callbacks received, and CPU ms of each process. The gateway and the worker
 * run with bench/lib/round-trips.cjs and are warmed up by one unmeasured callback-first round; each
 * path then admits BENCH_BUDGET_PURCHASES purchases at
 * BENCH_BUDGET_RATE/s and waits until every one is completed with its webhook event. CPU and
 * Redis commands are the window's minus an idle window's (sweeps, BullMQ's blocking reads) scaled
 * to the same length, SQL statements less the outbox relay's empty polls (perPurchase), all
 * divided by the purchases admitted. PostgreSQL's CPU is that
 * of the backends connected to the bench database only (the harness's own poller left out), so
 * other databases on the same server do not count; Redis's is the whole server's.
 */
async function budgetScenario(vendors) {
  const files = { 'purchase-gateway': `${work}/round-trips-budget-gateway.json`, 'reconciliation-worker': `${work}/round-trips-budget-worker.json` };
  for (const name of Object.keys(files)) await supervisor.stop(name);
  for (const [name, file] of Object.entries(files)) {
    await startApp(name, { nodeOptions: ['--require', resolve('bench/lib/round-trips.cjs')], env: { ROUND_TRIPS_FILE: file } });
  }
  try {
    return await withPoller(async (poll) => {
      const [{ pid: pollerPid }] = await poll('SELECT pg_backend_pid() AS pid');
      const snapshots = new Map();
      const take = async () => Object.fromEntries(await Promise.all(Object.entries(files).map(async ([name, file]) => [name, await roundTripSnapshot(name, file, snapshots)])));
      const window = async (body) => {
        const sampler = new ResourceSampler(measuredProcesses());
        const counts = await take();
        const backends = backendCpuSeconds(settings.database);
        sampler.start();
        const started = performance.now();
        const extra = await body();
        const seconds = (performance.now() - started) / 1000;
        const resources = sampler.stop();
        const backendsAfter = backendCpuSeconds(settings.database);
        const after = await take();
        let postgres = 0;
        for (const [pid, cpu] of backendsAfter) if (pid !== pollerPid) postgres += cpu - (backends.get(pid) ?? 0);
        return {
          seconds,
          counts: Object.fromEntries(Object.keys(files).map((name) => [name, diffCounts(after[name], counts[name])])),
          cpu_seconds: {
            'purchase-gateway': resources.processes['purchase-gateway']?.cpu_seconds ?? 0,
            'reconciliation-worker': resources.processes['reconciliation-worker']?.cpu_seconds ?? 0,
            postgres,
            redis: resources.redis_cpu_share_of_one_core * resources.wall_seconds,
            'provider-sandbox': resources.processes['provider-sandbox']?.cpu_seconds ?? 0,
          },
          machine_busy_share: resources.machine_busy_share,
          load_average: os.loadavg().map((value) => round(value, 2)),
          ...extra,
        };
      };
      // Not measured: the restarted apps' first purchases pay for JIT compilation and new connections.
      await budgetPath(vendors, poll, { ...BUDGET_PATHS[0], id: 'warmup' });
      // Past the warm-up's first polls (due 2 s after each submission), so the idle window is idle.
      await sleep(8_000);
      const idle = await window(async () => {
        await sleep(settings.budgetIdleSeconds * 1000);
        return {};
      });
      log(`budget: idle ${round(idle.seconds, 1)} s, load average ${idle.load_average.join(' ')}`);
      const paths = {};
      for (const path of BUDGET_PATHS) {
        const raw = await window(() => budgetPath(vendors, poll, path));
        paths[path.id] = { describe: path.describe, ...perPurchase(raw, idle) };
        log(`budget ${path.id}: ${JSON.stringify(paths[path.id].summary)}`);
      }
      const result = { id: 'budget', title: 'Per-purchase cost budget, admission to completed with its webhook event', kind: 'budget', idle, paths };
      console.error(budgetTable(result));
      return result;
    });
  } finally {
    for (const name of Object.keys(files)) await supervisor.stop(name);
    for (const name of Object.keys(files)) await startApp(name);
  }
}

/** Admits the path's purchases at a fixed rate and waits until each is completed with its webhook event. */
async function budgetPath(vendors, poll, path) {
  const total = settings.budgetPurchases;
  const items = await cloneQuotes(settings.databaseUrl, vendors, Math.ceil(total / vendors.length) + 2, `budget-${path.id}`, path.mobile);
  const [{ since }] = await poll('SELECT now() AS since');
  const run = await loadScenario(`budget-${path.id}`, `POST /transactions, ${path.describe}`, {
    url: urls.purchase,
    kind: 'purchase',
    path: '/api/v1/transactions',
    items,
    expectStatus: [202],
    connections: 8,
    warmupSeconds: 0,
    durationSeconds: Math.max(1, Math.floor(total / settings.budgetRate)),
    overallRate: settings.budgetRate,
    arrivals: 'uniform',
    describe: `POST /api/v1/transactions at ${settings.budgetRate}/s, ${path.describe}`,
  });
  const deadline = performance.now() + 90_000;
  for (;;) {
    const [row] = await poll(
      `SELECT count(*)::int AS admitted,
              count(*) FILTER (WHERE t.status = 'completed' AND EXISTS (SELECT 1 FROM webhook_events e WHERE e.resource_id = t.id AND e.type = 'transaction.completed'))::int AS completed
         FROM purchase_transactions t WHERE t.created_at >= $1`,
      [since],
    );
    if (row.completed >= row.admitted || performance.now() > deadline) return { admitted: row.admitted, completed: row.completed, admission_errors: run.errors };
    await sleep(250);
  }
}

/** SIGUSR2 makes an instrumented app write its counts (numbered); waits for that snapshot. */
async function roundTripSnapshot(name, file, snapshots) {
  const expected = (snapshots.get(name) ?? 0) + 1;
  snapshots.set(name, expected);
  process.kill(supervisor.pidOf(name), 'SIGUSR2');
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    try {
      const counts = JSON.parse(readFileSync(file, 'utf8'));
      if (counts.snapshot === expected) return counts;
    } catch {
      // not written yet, or half written
    }
    await sleep(50);
  }
  throw new Error(`${name} wrote no round-trip snapshot ${expected}`);
}

function diffCounts(after, before) {
  const diff = (a = {}, b = {}) => Object.fromEntries(Object.entries(a).map(([key, count]) => [key, count - (b[key] ?? 0)]).filter(([, count]) => count > 0));
  return Object.fromEntries(['statements', 'redis_commands', 'http_out', 'http_in'].map((kind) => [kind, diff(after[kind], before[kind])]));
}

/**
 * Per purchase admitted: CPU and Redis commands minus the idle window's (scaled to the same
 * length). SQL statements are counted as sent, less exactly the outbox relay's empty polls
 * (START TRANSACTION, the claim that found nothing, COMMIT): an empty poll is a claim without the
 * UPDATE that marks rows dispatched. The relay's polls that did relay rows are the purchases' cost.
 */
function perPurchase(raw, idle) {
  const n = Math.max(1, raw.admitted);
  const scale = raw.seconds / idle.seconds;
  const net = (count, idleCount = 0) => Math.max(0, count - idleCount * scale);
  for (const counts of Object.values(raw.counts)) {
    const statements = { ...counts.statements };
    const claim = Object.keys(statements).find((text) => text.startsWith('SELECT id, job_name AS "jobName"'));
    const marked = Object.entries(statements).find(([text]) => text.startsWith('UPDATE outbox_messages SET dispatched_at'))?.[1] ?? 0;
    const empty = claim ? Math.max(0, statements[claim] - marked) : 0;
    for (const text of [claim, 'START TRANSACTION', 'COMMIT']) if (text && statements[text] !== undefined) statements[text] -= empty;
    counts.empty_relay_polls = empty;
    counts.statements_without_empty_polls = statements;
  }
  const per = (map, idleMap = {}) =>
    Object.fromEntries(
      Object.entries(map)
        .map(([key, count]) => [key, round(net(count, idleMap[key]) / n, 3)])
        .filter(([, value]) => value >= 0.01)
        .sort((a, b) => b[1] - a[1]),
    );
  const total = (map) => round(Object.values(map).reduce((sum, value) => sum + value, 0), 2);
  const processes = {};
  for (const name of Object.keys(raw.counts)) {
    const counts = raw.counts[name];
    const kinds = {
      statements: per(counts.statements_without_empty_polls),
      redis_commands: per(counts.redis_commands, idle.counts[name].redis_commands),
      http_out: per(counts.http_out),
      http_in: per(counts.http_in),
    };
    processes[name] = { ...kinds, totals: Object.fromEntries(Object.entries(kinds).map(([kind, map]) => [kind, total(map)])) };
  }
  const cpuMs = Object.fromEntries(Object.entries(raw.cpu_seconds).map(([name, seconds]) => [name, round((net(seconds, idle.cpu_seconds[name]) * 1000) / n, 2)]));
  const withoutSandbox = round(['purchase-gateway', 'reconciliation-worker', 'postgres', 'redis'].reduce((sum, name) => sum + cpuMs[name], 0), 2);
  const gw = processes['purchase-gateway'].totals;
  const wk = processes['reconciliation-worker'].totals;
  return {
    admitted: raw.admitted,
    completed: raw.completed,
    admission_errors: raw.admission_errors,
    seconds: round(raw.seconds, 1),
    machine_busy_share: raw.machine_busy_share,
    load_average: raw.load_average,
    raw_counts: raw.counts,
    raw_cpu_seconds: raw.cpu_seconds,
    summary: {
      sql_statements: round(gw.statements + wk.statements, 2),
      sql_gateway: gw.statements,
      sql_worker: wk.statements,
      redis_commands: round(gw.redis_commands + wk.redis_commands, 2),
      provider_http_requests: wk.http_out,
      callbacks_received: processes['purchase-gateway'].http_in['POST /api/v1/provider/callback/:token'] ?? 0,
      cpu_ms: cpuMs,
      cpu_ms_without_sandbox: withoutSandbox,
    },
    processes,
  };
}

/** Least-squares slope of [x, y] points. */
function slopeOf(points) {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const numerator = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const denominator = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return denominator ? numerator / denominator : 0;
}

/**
 * Waits (at most 20 s, to keep a whole run near 12 minutes) until the purchases of a step are
 * final, so the next step starts on an empty backlog; what is left still counts as its own step's.
 */
async function drainBacklog(poll, since) {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    const [{ backlog }] = await poll(`SELECT count(*)::int AS backlog FROM purchase_transactions WHERE created_at >= $1 AND status = 'pending'`, [since]);
    if (backlog === 0) return;
    await sleep(1000);
  }
  log('sustained: the backlog of the last step did not drain within 20 s');
}

/** Restarts the purchase gateway with other settings, runs `body`, and restores the normal one. */
/** Runs `body` with one app restarted under other options, then restarts it as deployed. */
async function withApp(name, options, body) {
  await supervisor.stop(name);
  await startApp(name, options);
  try {
    return await body();
  } finally {
    await supervisor.stop(name);
    await startApp(name);
  }
}

const withPurchaseGateway = (options, body) => withApp('purchase-gateway', options, body);

async function profiled(id, body, app = 'purchase-gateway') {
  const directory = `${work}/profile-${id}`;
  mkdirSync(directory, { recursive: true });
  let run;
  await withApp(app, { nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${directory}`] }, async () => {
    run = await body();
  });
  const file = newestProfile(directory);
  if (!file) return { id, error: 'no profile written' };
  return {
    id,
    run: { throughput_per_second: run.throughput_per_second, latency_ms: run.latency_ms, errors: run.errors },
    ...summariseProfile(file, { window: run.measured_monotonic_us }),
  };
}

// ---- the run ------------------------------------------------------------------------------------

settings.maxRate = Number(process.env.BENCH_MAX_RATE ?? 4000);
settings.batches = Number(process.env.BENCH_BATCHES ?? 3);
/** Pool sizes tried for the purchase gateway besides BENCH_DATABASE_POOL_SIZE (the deployed default, 10). */
settings.poolSweep = (process.env.BENCH_POOL_SWEEP ?? '4,24').split(',').filter(Boolean).map(Number);
/** BENCH_ONLY=budget: purchases per path, their arrival rate, and the idle window subtracted (bench/run.mjs budgetScenario). */
settings.budgetPurchases = Number(process.env.BENCH_BUDGET_PURCHASES ?? 300);
settings.budgetRate = Number(process.env.BENCH_BUDGET_RATE ?? 50);
settings.budgetIdleSeconds = Number(process.env.BENCH_BUDGET_IDLE_S ?? 10);
/**
 * BENCH_ONLY=worker,batch (comma list) runs a subset while working on one path: the result file is
 * written as partial-<date>.json and docs/BENCHMARKS.md is left alone. Groups: pgbench, products, quotes,
 * payouts, batch, sustained, statement, export, transactions, knee, plain, replays, reads, experiments, profiles, explain, large, worker,
 * budget (the per-purchase cost budget, bench/run.mjs budgetScenario)
 * (worker, sustained and knee imply transactions: it admits the worker's backlog and is what sustained is compared with).
 */
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((group) => group.trim())) : null;
// The worker's backlog is admitted by the transactions scenario; the sustained one is compared with its throughput.
if (only?.has('worker') || only?.has('sustained') || only?.has('knee')) only.add('transactions');
const want = (group) => only === null || only.has(group);

const results = {
  started_at: startedAt.toISOString(),
  machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, memory_gb: round(os.totalmem() / 2 ** 30, 1), node: process.version, platform: `${os.type()} ${os.release()}` },
  settings: { ...settings, node_options: deployedNodeOptions, note: 'APP_ENV=development with every provider URL, key, callback token and encryption key set explicitly; NODE_ENV=production, LOG_LEVEL=info, NODE_OPTIONS as deployed' },
  scenarios: {},
  baselines: {},
  explain: {},
  profiles: {},
  experiments: {},
};

let failed = null;
try {
  await build();
  await ensureServices();
  results.postgres = await serverSettings(`${settings.pgBase}/postgres`);
  await clearBenchQueues();

  // The database's ceiling first, while nothing else of ours is connected.
  if (want('pgbench')) {
    results.baselines.pgbench = await runPgbench(settings, work, log);
    log(`pgbench: ${results.baselines.pgbench.throughput_per_second} tps, p99 ${results.baselines.pgbench.latency_ms.p99} ms`);
  }

  log(`database ${settings.database}: recreating and migrating`);
  await migrate();
  // The sandbox keeps every transaction of the run in memory (a provider keeps them for ever); under the
  // deployed 128 MB old space it collected ever harder and ran out of heap after about 105,000 creates
  // (the seven-step ladder's sixth step). The provider is not our pod, so it gets room: 1 GB.
  await startApp('provider-sandbox', { nodeOptions: ['--max-old-space-size=1024'] });
  await Promise.all([startApp('purchase-gateway'), startApp('payout-gateway'), startApp('reconciliation-worker')]);
  const vendors = await seedVendors(baseEnv, settings, log);
  const { product, catalogueTotal } = await pickPurchaseProduct(`${urls.purchase}/api/v1`, vendors[0].purchaseToken);
  await templateQuotes(`${urls.purchase}/api/v1`, vendors, product.id);
  results.data = { vendors: vendors.length, catalogue_products: catalogueTotal, purchase_product: { id: product.id, name: product.name, charge_minor: product.price.charge_minor } };
  log(`purchase product ${product.id} (${product.name}); catalogue of ${catalogueTotal}`);

  // ---- Phase A: the worker runs (payouts need it); no purchase is admitted yet.
  if (want('products')) results.scenarios.products = await loadScenario('products', 'GET /products (page of 50)', {
    url: urls.purchase,
    kind: 'get',
    items: vendors.map((vendor) => [vendor.purchaseToken, '/api/v1/products?per_page=50&page=1']),
    allowWrap: true,
    sampleErrors: false,
    expectStatus: [200],
    describe: 'GET /api/v1/products?per_page=50, tokens of every vendor in turn',
  });
  if (want('quotes')) results.scenarios.quotes = await loadScenario('quotes', 'POST /quotes', {
    url: urls.purchase,
    kind: 'post',
    path: '/api/v1/quotes',
    items: vendors.map((vendor) => [vendor.purchaseToken, { product_id: product.id, credit_party_identifier: { mobile_number: '27821234567' } }]),
    allowWrap: true,
    expectStatus: [201],
    describe: `POST /api/v1/quotes for product ${product.id}, tokens of every vendor in turn`,
  });
  // What a purchase costs to complete, measured before any payout exists: the payout scenarios
  // leave thousands of payouts whose status polls and reversal watch the worker keeps running for
  // minutes (about 80 polls a second at first), which an earlier run counted as purchase cost.
  // Sustained needs the worker running and no backlog of earlier purchases (before phase B); the
  // budget restarts the gateway and the worker instrumented, and then plainly again.
  if (want('sustained')) results.scenarios.sustained = await sustainedScenario(vendors);
  if (want('budget')) results.scenarios.budget = await budgetScenario(vendors);
  const payoutsSpec = {
    url: urls.payout,
    kind: 'payout',
    path: '/api/v1/payouts',
    template: PAYOUT_TEMPLATE,
    referencePrefix: `po-${stamp.replace(/[^0-9]/g, '')}`,
    items: vendors.map((vendor) => vendor.payoutToken),
    allowWrap: true,
    expectStatus: [200],
    describe: 'POST /api/v1/payouts, R200 bank_a_instant_money, unique reference each; the provider call happens inside the request',
  };
  if (want('payouts')) results.scenarios.payouts = await loadScenario('payouts', 'POST /api/v1/payouts (cash rail)', payoutsSpec);
  if (want('batch')) {
    const settled = await settlePayoutWork(60);
    results.scenarios.batch = { ...(await batchScenario(vendors)), settled_before: settled };
  }
  // Here, while the worker runs (a payout's later polls need it); the gateway's profiles come later.
  // After the batches: profiling restarts the payout gateway, and a batch on a gateway just
  // restarted measures its JIT warming up (690 ms for the first batch in one run), not acceptance.
  if (settings.profile && want('profiles') && want('payouts')) {
    results.profiles.payouts = await profiled(
      'payouts',
      () => loadScenario('payouts-profiled', 'POST /api/v1/payouts under --cpu-prof', { ...payoutsSpec, referencePrefix: `${payoutsSpec.referencePrefix}-prof` }),
      'payout-gateway',
    );
  }
  // The payout account statement, after the payout scenarios (its lines are added to theirs).
  if (want('statement')) results.scenarios.statement_reads = await statementReadScenario(vendors);
  if (want('export')) results.scenarios.statement_export = await statementExportScenario(vendors);

  // ---- Phase B: the worker is stopped so purchases pile up for the worker scenario and the
  // admission path is measured on its own.
  await supervisor.stop('reconciliation-worker');
  if (want('transactions')) results.scenarios.transactions = await purchaseScenario('transactions', 'POST /transactions (new purchases)', vendors, urls.purchase, 'tx');
  if (want('knee')) results.scenarios.admission_knee = await admissionKnee(vendors);
  if (want('plain')) {
    await startPlainBaseline();
    results.baselines.plain_admission = await purchaseScenario('plain-admission', 'Plain node:http + pg admission (baseline)', vendors, urls.plain, 'plain');
    await supervisor.stop('plain-admission-server');
  }

  const admitted = await admittedItems(vendors, 'tx');
  if (want('replays')) results.scenarios.replays = await loadScenario('replays', 'POST /transactions replayed (same key, quote, reference)', {
    url: urls.purchase,
    kind: 'purchase',
    path: '/api/v1/transactions',
    items: admitted.map((item) => [item.token, item.quoteId, item.key, item.reference]),
    allowWrap: true,
    expectStatus: [202],
    describe: `exact replays of the ${admitted.length} purchases just admitted`,
  });
  const readsSpec = {
    url: urls.purchase,
    kind: 'get',
    items: admitted.map((item) => [item.token, `/api/v1/transactions/${item.transactionId}`]),
    allowWrap: true,
    expectStatus: [200],
    describe: `GET /api/v1/transactions/{id} over the ${admitted.length} purchases just admitted`,
  };
  if (want('reads')) results.scenarios.transaction_reads = await loadScenario('transaction-reads', 'GET /transactions/{id}', readsSpec);

  // Request logging: the same purchase scenario with per-request info logs switched off.
  if (want('experiments')) results.experiments.log_level_warn = await withPurchaseGateway({ env: { LOG_LEVEL: 'warn' } }, async () => ({
    products: await loadScenario('products-warn', 'GET /products, LOG_LEVEL=warn', { ...productsSpec(vendors), sampleErrors: false }),
    transactions: await purchaseScenario('transactions-warn', 'POST /transactions, LOG_LEVEL=warn', vendors, urls.purchase, 'txwarn'),
  }));

  // Pool size: the same purchase scenario with a smaller and a larger pool than the deployed default.
  if (want('experiments')) {
    results.experiments.pool_sizes = [];
    for (const poolSize of settings.poolSweep) {
      const run = await withPurchaseGateway({ env: { DATABASE_POOL_SIZE: String(poolSize) } }, () =>
        purchaseScenario(`transactions-pool${poolSize}`, `POST /transactions, DATABASE_POOL_SIZE=${poolSize}`, vendors, urls.purchase, `txpool${poolSize}`),
      );
      results.experiments.pool_sizes.push({ pool_size: poolSize, ...run });
    }
  }

  // Peak RSS without the deployed heap cap: V8's default old space is sized from this machine's memory.
  if (want('experiments'))
    results.experiments.default_heap = await withPurchaseGateway({ env: { NODE_OPTIONS: '' } }, () =>
      purchaseScenario('transactions-default-heap', 'POST /transactions, V8 default heap (no NODE_OPTIONS)', vendors, urls.purchase, 'txheap'),
    );

  if (settings.profile && want('profiles')) {
    results.profiles.transactions = await profiled('transactions', () => purchaseScenario('transactions-profiled', 'POST /transactions under --cpu-prof', vendors, urls.purchase, 'txprof'));
    results.profiles.products = await profiled('products', () =>
      loadScenario('products-profiled', 'GET /products under --cpu-prof', { ...productsSpec(vendors), sampleErrors: false }),
    );
    if (admitted.length > 0) results.profiles.transaction_reads = await profiled('transaction-reads', () => loadScenario('transaction-reads-profiled', 'GET /transactions/{id} under --cpu-prof', readsSpec));
  }

  if (want('explain')) {
    log('EXPLAIN of the hot queries');
    results.explain.before_history = await explainHotQueries(settings.databaseUrl, vendors);
  }

  // ---- Phase C: the same purchase scenario with a million purchases already stored.
  if (want('large')) {
    log(`inserting ${settings.largeTableRows} stored purchases (quotes, transactions, idempotency keys, events, outbox rows)`);
    const insertStarted = performance.now();
    await insertHistory(settings.databaseUrl, vendors, settings.largeTableRows);
    results.data.history_rows = settings.largeTableRows;
    results.data.history_insert_seconds = round((performance.now() - insertStarted) / 1000, 1);
    results.data.table_sizes = await query(
      settings.databaseUrl,
      `SELECT relname AS table, n_live_tup::bigint AS rows, pg_size_pretty(pg_total_relation_size(relid)) AS total_size
         FROM pg_stat_user_tables WHERE relname IN ('purchase_transactions', 'purchase_quotes', 'purchase_idempotency_keys', 'purchase_transaction_events', 'outbox_messages') ORDER BY relname`,
    );
    log(`history inserted in ${results.data.history_insert_seconds} s`);
    const checkpointsBefore = await checkpointCounts(settings.databaseUrl);
    results.scenarios.transactions_large = await purchaseScenario('transactions-1m', 'POST /transactions with 1M purchases stored', vendors, urls.purchase, 'txlarge');
    await startPlainBaseline();
    results.baselines.plain_admission_large = await purchaseScenario('plain-admission-1m', 'Plain admission baseline with 1M purchases stored', vendors, urls.plain, 'plainlarge');
    // Checkpoints PostgreSQL started while the two scenarios above ran (timed or requested by WAL volume).
    results.data.checkpoints_during_large = await checkpointCounts(settings.databaseUrl).then((after) => ({
      timed: after.timed - checkpointsBefore.timed,
      requested: after.requested - checkpointsBefore.requested,
      buffers_written: after.buffers - checkpointsBefore.buffers,
    }));
    await supervisor.stop('plain-admission-server');
    results.explain.after_history = await explainHotQueries(settings.databaseUrl, vendors);
  }

  // ---- Phase D: the worker drains everything admitted above.
  if (want('worker')) {
    results.scenarios.worker = await workerScenario();
    log(`worker: ${results.scenarios.worker.throughput_per_second} completions/s (steady), ${results.scenarios.worker.completed_in_window}/${results.scenarios.worker.backlog} in ${results.scenarios.worker.window_seconds} s`);
    results.scenarios.verifications = await verificationScenario();
    log(`verifications: ${results.scenarios.verifications.throughput_per_second} lookups/s (steady), ${results.scenarios.verifications.lookups_in_window}/${results.scenarios.verifications.queued} in ${results.scenarios.verifications.window_seconds} s`);
  }
  if (results.scenarios.sustained && results.scenarios.transactions) {
    const admission = results.scenarios.transactions.throughput_per_second;
    results.scenarios.sustained.admission_per_second = admission;
    results.scenarios.sustained.ratio_to_admission = round((results.scenarios.sustained.highest_sustained_per_second ?? 0) / admission, 2);
    // CPU per admitted purchase as the issue defines it: gateway + PostgreSQL cores over admissions per second, same run.
    const txResources = results.scenarios.transactions.resources;
    const admissionCores = (txResources.processes['purchase-gateway']?.cpu_share_of_one_core ?? 0) + txResources.postgres_cpu_share_of_one_core;
    const sustained = results.scenarios.sustained;
    sustained.cpu_ms_per_admitted = round((admissionCores * 1000) / admission, 2);
    sustained.cpu_ratio_completed_to_admitted = sustained.cpu_ms_per_admitted > 0 ? round(sustained.system_cpu_ms_per_completed_without_sandbox / sustained.cpu_ms_per_admitted, 2) : null;
    log(
      `sustained: ${sustained.highest_sustained_per_second ?? 'none'}/s against ${admission}/s admitted (ratio ${sustained.ratio_to_admission}); ` +
        `CPU per completed purchase without the sandbox ${sustained.system_cpu_ms_per_completed_without_sandbox} ms against ${sustained.cpu_ms_per_admitted} ms per admitted (ratio ${sustained.cpu_ratio_completed_to_admitted}); load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`,
    );
  }
} catch (error) {
  failed = error;
  log(`FAILED: ${error.stack ?? error}`);
} finally {
  await supervisor.stopAll();
}

results.finished_at = new Date().toISOString();
results.duration_seconds = round((Date.now() - clock) / 1000, 0);
if (failed) results.failure = String(failed.stack ?? failed);
const resultFile = `bench/results/${only ? 'partial-' : ''}${stamp}.json`;
writeFileSync(resultFile, `${JSON.stringify(results, null, 2)}\n`);
if (!failed) {
  if (!only) writeReport(results, resultFile, 'docs/BENCHMARKS.md');
  if (process.env.BENCH_KEEP_DATABASE !== '1') await dropDatabase(settings.pgBase, settings.database).catch(() => undefined);
  if (process.env.BENCH_KEEP_LOGS !== '1') rmSync(work, { recursive: true, force: true });
}
log(`${failed ? 'FAILED; logs kept in ' + work : 'done'}: ${resultFile}${failed ? '' : ' and docs/BENCHMARKS.md'}`);
process.exit(failed ? 1 : 0);

function productsSpec(vendors) {
  return {
    url: urls.purchase,
    kind: 'get',
    items: vendors.map((vendor) => [vendor.purchaseToken, '/api/v1/products?per_page=50&page=1']),
    allowWrap: true,
    expectStatus: [200],
    describe: 'GET /api/v1/products?per_page=50',
  };
}
