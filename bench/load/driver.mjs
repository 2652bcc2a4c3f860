/**
 * The load generator, run as its own process so that its CPU is not the harness's:
 * `node bench/load/driver.mjs <spec.json>` prints one JSON result on stdout.
 *
 * A spec names a request `kind`; each kind builds every request afresh (new idempotency keys,
 * one quote per purchase, unique payout references) from the spec's items. A warm-up run
 * (not counted) precedes the measured run. Latency percentiles are exact, from every
 * response time of the measured run (autocannon's own summary has no p95).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let cursor = 0;
let exhausted = false;

function nextItem() {
  if (cursor >= spec.items.length) {
    exhausted = true;
    cursor = 0;
  }
  return spec.items[cursor++];
}

const json = (token, extra = {}) => ({ 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, ...extra });

/** Per kind: the autocannon request whose setupRequest makes each request. */
const KINDS = {
  /** items: [[token, path]] — GETs spread over vendors and resources. */
  get: () => ({
    method: 'GET',
    setupRequest: (request) => {
      const [token, path] = nextItem();
      return { ...request, path, headers: { accept: 'application/json', authorization: `Bearer ${token}` } };
    },
  }),
  /** items: [[token, body]] with a fixed path — e.g. POST /quotes. */
  post: () => ({
    method: 'POST',
    setupRequest: (request) => {
      const [token, body] = nextItem();
      return { ...request, path: spec.path, headers: json(token), body: JSON.stringify(body) };
    },
  }),
  /** items: [[token, quoteId, idempotencyKey, reference]] — one purchase per quote (new or replayed). */
  purchase: () => ({
    method: 'POST',
    setupRequest: (request) => {
      const [token, quoteId, key, reference] = nextItem();
      return { ...request, path: spec.path, headers: json(token, { 'idempotency-key': key }), body: JSON.stringify({ quote_id: quoteId, reference }) };
    },
  }),
  /** items: [token]; a payout with a unique reference each time (cash rail, sandbox pays at once). */
  payout: () => {
    let serial = 0;
    return {
      method: 'POST',
      setupRequest: (request) => {
        const token = nextItem();
        serial += 1;
        const body = { ...spec.template, reference: `${spec.referencePrefix}-${process.pid}-${serial}` };
        return { ...request, path: spec.path, headers: json(token), body: JSON.stringify(body) };
      },
    };
  },
};

function run(durationSeconds, record) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const statusCounts = {};
    const errorSamples = {};
    const expected = new Set(spec.expectStatus);
    const request = KINDS[spec.kind]();
    if (spec.sampleErrors) {
      request.onResponse = (status, body) => {
        if (!expected.has(status) && !errorSamples[status]) errorSamples[status] = String(body).slice(0, 600);
      };
    }
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: durationSeconds,
        requests: [request],
        timeout: 30,
        excludeErrorStats: false,
        // A fixed arrival rate over all connections (the sustained scenario); otherwise as fast as answered.
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({ result, latencies, statusCounts, errorSamples });
      },
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      if (record) latencies.push(responseTime);
    });
  });
}

/**
 * Open loop with evenly spaced arrivals (`arrivals: 'uniform'`, the admission knee): request i is
 * due at start + i / rate, whatever the answers to earlier ones, and its latency runs from when it
 * was due, so a client-side wait counts too. autocannon's overallRate sends each second's quota in
 * a burst on all connections at once, which measures a burst's queue, not a steady rate.
 */
async function paced(durationSeconds, record) {
  const target = new URL(spec.url);
  // At most `connections` requests in flight, as a vendor's client pool: past that, requests wait
  // in the client (and that wait counts), instead of piling up in the gateway until its pool times out.
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const request = KINDS[spec.kind]();
  const latencies = [];
  const statusCounts = {};
  const errorSamples = {};
  const failures = { errors: 0, timeouts: 0 };
  const send = (made, due) =>
    new Promise((resolve) => {
      const body = made.body ?? null;
      const outgoing = http.request(
        { host: target.hostname, port: target.port, path: made.path, method: request.method, agent, timeout: 30_000, headers: { ...made.headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            statusCounts[response.statusCode] = (statusCounts[response.statusCode] ?? 0) + 1;
            if (record) latencies.push(performance.now() - due);
            if (spec.sampleErrors && !spec.expectStatus.includes(response.statusCode) && !errorSamples[response.statusCode]) errorSamples[response.statusCode] = Buffer.concat(chunks).toString().slice(0, 600);
            resolve();
          });
        },
      );
      outgoing.on('timeout', () => {
        failures.timeouts += 1;
        outgoing.destroy(new Error('timeout'));
      });
      outgoing.on('error', () => {
        failures.errors += 1;
        resolve();
      });
      outgoing.end(body ?? undefined);
    });
  const started = performance.now();
  const total = Math.floor(durationSeconds * spec.overallRate);
  const inFlight = [];
  for (let index = 0; index < total; index++) {
    const due = started + (index * 1000) / spec.overallRate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(send(request.setupRequest({}), due));
  }
  await Promise.all(inFlight);
  agent.destroy();
  // Throughput over the arrival window: what was asked and answered, not the tail's wait.
  return { result: { duration: durationSeconds, errors: failures.errors, timeouts: failures.timeouts }, latencies, statusCounts, errorSamples };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index] * 100) / 100;
}

const runner = spec.arrivals === 'uniform' ? paced : run;
const warmup = spec.warmupSeconds > 0 ? await runner(spec.warmupSeconds, false) : null;
// Monotonic microseconds, the clock of V8's CPU profiles: lets a profile be cut to the measured run.
const measuredFromMicros = Number(process.hrtime.bigint() / 1000n);
const { result, latencies, statusCounts, errorSamples } = await runner(spec.durationSeconds, true);
const measuredToMicros = Number(process.hrtime.bigint() / 1000n);
const sorted = Float64Array.from(latencies).sort();
const expected = new Set(spec.expectStatus.map(String));
const ok = Object.entries(statusCounts).reduce((sum, [status, count]) => sum + (expected.has(status) ? count : 0), 0);
const unexpected = Object.entries(statusCounts).reduce((sum, [status, count]) => sum + (expected.has(status) ? 0 : count), 0);
const seconds = result.duration;
process.stdout.write(
  `${JSON.stringify({
    connections: spec.connections,
    duration_seconds: Math.round(seconds * 100) / 100,
    responses: latencies.length,
    ok_responses: ok,
    throughput_per_second: Math.round((ok / seconds) * 10) / 10,
    latency_ms: {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      mean: sorted.length ? Math.round((sorted.reduce((sum, value) => sum + value, 0) / sorted.length) * 100) / 100 : null,
      max: sorted.length ? Math.round(sorted[sorted.length - 1] * 100) / 100 : null,
    },
    errors: unexpected + result.errors + result.timeouts,
    error_detail: { unexpected_status: unexpected, socket_errors: result.errors, timeouts: result.timeouts },
    status_counts: statusCounts,
    error_samples: errorSamples,
    measured_monotonic_us: [measuredFromMicros, measuredToMicros],
    items_used: cursor,
    items_exhausted: exhausted,
    warmup: warmup ? { responses: Object.values(warmup.statusCounts).reduce((sum, count) => sum + count, 0), status_counts: warmup.statusCounts } : null,
  })}\n`,
);
