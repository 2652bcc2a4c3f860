import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, PRODUCTS, SANDBOX_API_KEY, CALLBACK_TOKEN } from '../support/purchase-stack.js';
import { envInt, reportFigures, seededRandom } from '../support/reliability/figures.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, attempt, buy, call, createQuote, dataOf, isAnswer, uniqueKey, type HttpAnswer } from '../support/reliability/requests.js';
import { scanForSecrets, type Secret } from '../support/reliability/secret-scan.js';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, rtcPayout, uniqueReference, voucherPayout } from '../payout/payout-requests.js';

/** `RELIABILITY_KILLS=100 npm run test:e2e -- test/reliability/crashes` for the long run. */
const KILLS = envInt('RELIABILITY_KILLS', 20);
const SEED = envInt('RELIABILITY_SEED', Date.now() % 2 ** 31);
/** Each provider call is held this long in each direction, so a kill often lands mid-call. */
const PROVIDER_LATENCY_MS = 200;

const PURCHASE_FINAL = ['completed', 'failed', 'reversed', 'review'];
const PAYOUT_FINAL = ['paid', 'failed', 'reversed', 'needs_review', 'cancelled'];

/**
 * The compiled worker is SIGKILLed at random moments while it submits purchases and batch
 * items (the provider sits behind a proxy that slows every call, so kills land inside provider
 * calls), then restarted, again and again. Afterwards every purchase and payout is final (or in
 * review), and the sandbox saw no second submission of anything. Then the gateways themselves
 * are killed mid-request and the same requests replayed.
 */
describe('crashes', () => {
  let stack: ReliabilityStack;
  let buyer: TestVendor;
  let payer: TestVendor;
  const logSecrets: Secret[] = [];
  const spawnedOutput: string[] = [];
  const figures: Record<string, unknown> = { seed: SEED };

  beforeAll(async () => {
    assertCompiled('worker', 'payoutGateway', 'purchaseGateway');
    stack = await startReliabilityStack({
      worker: false,
      providerProxy: true,
      config: {
        // A dead worker's jobs run again 2-4 s after the crash instead of 30-60 s.
        WORKER_JOB_LOCK_MS: '2000',
        PURCHASE_PROVIDER_TIMEOUT_MS: '3000',
        PURCHASE_VERIFICATION_WINDOW_MS: '180000',
        PURCHASE_NOT_FOUND_SETTLE_MS: '1000',
        PAYOUT_PROVIDER_TIMEOUT_MS: '3000',
        PAYOUT_REVIEW_AFTER_MS: '10000',
        PAYOUT_SWEEP_INTERVAL_MS: '2000',
        WORKER_CONCURRENCY: '8',
      },
    });
    stack.providerProxy!.setLatency(PROVIDER_LATENCY_MS);
    buyer = await stack.purchaseVendor();
    payer = await stack.payoutVendor({ fundCents: 500_000_000n, feePerPayoutCents: 100n });
    logSecrets.push(
      { kind: 'token', value: buyer.token },
      { kind: 'token', value: payer.token },
      { kind: 'callback token', value: CALLBACK_TOKEN },
      { kind: 'api key', value: SANDBOX_API_KEY },
    );
  }, 60_000);

  afterAll(() =>
    closeCheckingBooks(stack, () => [buyer.vendor.id, payer.vendor.id], {
      andThen: async () => {
        // Deliveries and fulfilments read through the API are secrets the spawned apps must never have logged.
        await collectDeliverySecrets();
        const findings = scanForSecrets(spawnedOutput.join('\n'), logSecrets);
        figures.logBytesScanned = spawnedOutput.join('\n').length;
        figures.secretsLookedFor = logSecrets.length;
        figures.secretsFoundInLogs = findings.length;
        reportFigures('crashes', figures);
        expect(findings).toEqual([]);
      },
    }),
  );

  function workerEnv(): Record<string, string> {
    return { ...stack.env, DATABASE_POOL_SIZE: '10', PORT: '0', SHUTDOWN_GRACE_MS: '2000' };
  }

  async function admitPurchases(count: number, suffixes: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const suffix = suffixes[index % suffixes.length];
      const product = index % 4 === 0 ? PRODUCTS.pin : PRODUCTS.fixedAirtime;
      const quote = await createQuote(stack.purchase.url, buyer.token, airtimeQuote(suffix, product));
      const answer = await buy(stack.purchase.url, buyer.token, quote.id);
      expect(answer.status).toBe(202);
      ids.push(dataOf(answer).id);
    }
    return ids;
  }

  async function sendBatch(items: number): Promise<string> {
    const reference = uniqueReference('crash-batch');
    const payouts = Array.from({ length: items }, (_, index) =>
      index % 10 === 0 ? voucherPayout('55') : index % 10 === 1 ? rtcPayout('55') : index % 25 === 2 ? cashPayout('01', { amount: '20.00' }) : cashPayout('55', { amount: '20.00' }),
    );
    const answer = await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: payer.token, body: { reference, payouts } });
    expect(answer.status).toBe(202);
    return reference;
  }

  /** Submissions a dead worker left half done: claimed (the provider call may or may not have gone out) and never answered. */
  async function interruptedSubmissions(): Promise<string[]> {
    const rows = await stack.sql<{ id: string }>(
      `SELECT id::text FROM purchase_transactions WHERE vendor_id = $1 AND submission_attempted_at IS NOT NULL AND submission_ended_at IS NULL
       UNION ALL
       SELECT id::text FROM payouts WHERE vendor_id = $2 AND status = 'pending' AND status_reason = 'submitting'`,
      [buyer.vendor.id, payer.vendor.id],
    );
    return rows.map((row) => row.id);
  }

  async function collectDeliverySecrets(): Promise<void> {
    const paid = await stack.sql<{ reference: string }>(`SELECT reference FROM payouts WHERE vendor_id = $1 AND status = 'paid' AND method <> 'rtc_eft' LIMIT 60`, [payer.vendor.id]);
    for (const { reference } of paid) {
      const answer = await call(stack.payout.url, { path: `/api/v1/payouts/${encodeURIComponent(reference)}/delivery`, token: payer.token });
      if (answer.status !== 200) continue;
      const delivery = dataOf(answer);
      if (delivery.pin) logSecrets.push({ kind: 'pin', value: delivery.pin });
      if (delivery.serial) logSecrets.push({ kind: 'serial', value: delivery.serial });
    }
    const completed = await stack.sql<{ id: string }>(`SELECT id::text FROM purchase_transactions WHERE vendor_id = $1 AND status = 'completed' AND product_id = $2`, [buyer.vendor.id, PRODUCTS.pin]);
    for (const { id } of completed) {
      const answer = await call(stack.purchase.url, { path: `/api/v1/transactions/${id}/fulfilment`, token: buyer.token });
      if (answer.status !== 200) continue;
      const fulfilment = dataOf(answer);
      for (const value of [fulfilment?.pin?.code, fulfilment?.pin?.serial, fulfilment?.code, fulfilment?.serial].filter((item): item is string => typeof item === 'string')) {
        logSecrets.push({ kind: value.startsWith('SN') ? 'serial' : 'pin', value });
      }
    }
  }

  it(`survives ${KILLS} SIGKILLs of the worker mid-submission: everything ends final or in review, nothing submitted twice`, async () => {
    const random = seededRandom(SEED);
    const suffixes = ['55', '55', '55', '55', '01', '02', '04', '07', '55', '55'];
    await admitPurchases(24, suffixes);
    const batches = [await sendBatch(120)];

    const kills: Array<{ afterReadyMs: number; bootMs: number; interrupted: number }> = [];
    const halfDone = new Set<string>();
    const phaseStarted = Date.now();
    // Two replicas overlap: the next worker boots while the current one works, then the current
    // one is killed at a random moment; so there is always work in flight when a kill lands.
    let spawned = Date.now();
    let current = spawnApp('worker', workerEnv());
    await current.ready;
    let bootMs = Date.now() - spawned;
    for (let kill = 0; kill < KILLS; kill++) {
      spawned = Date.now();
      const next = spawnApp('worker', workerEnv());
      // Keep work arriving, so every worker life has fresh submissions to be killed in.
      const arriving = kill % 2 === 0 ? admitPurchases(2, suffixes) : sendBatch(10).then((reference) => void batches.push(reference));
      const afterReadyMs = 150 + Math.floor(random() * 1_350);
      await sleep(afterReadyMs);
      const exit = await current.kill('SIGKILL');
      spawnedOutput.push(current.output());
      expect(exit.signal).toBe('SIGKILL');
      await arriving;
      await next.ready;
      const nextBootMs = Date.now() - spawned;
      // Counted once each: a later worker may not have resolved it yet when the next kill lands.
      const interrupted = (await interruptedSubmissions()).filter((id) => !halfDone.has(id));
      interrupted.forEach((id) => halfDone.add(id));
      kills.push({ afterReadyMs, bootMs, interrupted: interrupted.length });
      current = next;
      bootMs = nextBootMs;
    }

    figures.killPhaseMs = Date.now() - phaseStarted;
    // The last worker lives on and finishes everything.
    const recoveryStarted = Date.now();
    const last = current;
    try {
      await eventually(
        () => stack.sql<{ status: string }>(`SELECT status FROM purchase_transactions WHERE vendor_id = $1`, [buyer.vendor.id]),
        (rows) => rows.every((row) => PURCHASE_FINAL.includes(row.status)),
        150_000,
        500,
      );
      await eventually(
        () => stack.sql<{ status: string }>(`SELECT status FROM payouts WHERE vendor_id = $1`, [payer.vendor.id]),
        (rows) => rows.every((row) => PAYOUT_FINAL.includes(row.status)),
        150_000,
        500,
      );
    } finally {
      await last.kill('SIGTERM');
      spawnedOutput.push(last.output());
    }
    const recoveryMs = Date.now() - recoveryStarted;

    const purchases = await stack.sql<{ id: string; status: string; error_code: string | null }>(`SELECT id::text, status, error_code FROM purchase_transactions WHERE vendor_id = $1`, [buyer.vendor.id]);
    const payouts = await stack.sql<{ merchant_reference: string; status: string }>(`SELECT merchant_reference, status FROM payouts WHERE vendor_id = $1`, [payer.vendor.id]);
    const purchaseWitness = await Promise.all(purchases.map(async (row) => ({ ...row, ...(await stack.witness('external_id', row.id)) })));
    const payoutWitness = await Promise.all(payouts.map(async (row) => ({ ...row, ...(await stack.witness('merchant_reference', row.merchant_reference)) })));
    // Never twice; and whatever the provider completed or paid, it received exactly once.
    expect([...purchaseWitness, ...payoutWitness].filter((row) => row.count > 1)).toEqual([]);
    expect(purchaseWitness.filter((row) => ['completed', 'reversed'].includes(row.status) && row.count !== 1)).toEqual([]);
    expect(payoutWitness.filter((row) => ['paid', 'reversed'].includes(row.status) && row.count !== 1)).toEqual([]);
    // The kills did land inside submissions: some provider calls were cut off half way.
    expect(halfDone.size).toBeGreaterThan(0);

    const count = (rows: Array<{ status: string }>) => rows.reduce<Record<string, number>>((tally, row) => ({ ...tally, [row.status]: (tally[row.status] ?? 0) + 1 }), {});
    Object.assign(figures, {
      workerKills: kills.length,
      killsLandingMidSubmission: kills.filter((entry) => entry.interrupted > 0).length,
      submissionsLeftHalfDone: halfDone.size,
      medianBootMs: [...kills.map((entry) => entry.bootMs)].sort((a, b) => a - b)[Math.floor(kills.length / 2)],
      purchases: count(purchases),
      purchaseFailureCodes: purchases.filter((row) => row.error_code).reduce<Record<string, number>>((tally, row) => ({ ...tally, [row.error_code!]: (tally[row.error_code!] ?? 0) + 1 }), {}),
      payouts: count(payouts),
      batches: batches.length,
      recoveryAfterLastKillMs: recoveryMs,
    });
  }, 600_000);

  /**
   * Starts a compiled gateway, sends `requests` one every `spacingMs`, kills it as soon as
   * `answeredBeforeKill` of them were answered (so some were answered, some are in flight, some
   * never arrive), and restarts it on the same port.
   */
  async function killMidRequest(
    app: 'payoutGateway' | 'purchaseGateway',
    requests: Array<(baseUrl: string) => Promise<HttpAnswer | { error: string; elapsedMs: number }>>,
    spacingMs: number,
    answeredBeforeKill: number,
  ): Promise<{ first: Array<HttpAnswer | { error: string; elapsedMs: number }>; restarted: SpawnedApp }> {
    const port = await freePort();
    const env = { ...stack.env, DATABASE_POOL_SIZE: '10' };
    const gateway = spawnApp(app, env, port);
    await gateway.ready;
    let answered = 0;
    const inFlight = requests.map((send, index) =>
      sleep(index * spacingMs)
        .then(() => send(gateway.url))
        .then((result) => {
          if (isAnswer(result)) answered += 1;
          return result;
        }),
    );
    const deadline = Date.now() + 20_000;
    while (answered < answeredBeforeKill && Date.now() < deadline) await sleep(2);
    await gateway.kill('SIGKILL');
    spawnedOutput.push(gateway.output());
    const first = await Promise.all(inFlight);
    const restarted = spawnApp(app, env, port);
    await restarted.ready;
    return { first, restarted };
  }

  it('payout gateway killed mid-request: replays of the same references answer the original, one payout and at most one submission each', async () => {
    await stack.startWorker();
    const bodies = Array.from({ length: 30 }, () => cashPayout('55', { amount: '20.00' }));
    const { first, restarted } = await killMidRequest(
      'payoutGateway',
      bodies.map((body) => (baseUrl) => attempt(baseUrl, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body, timeoutMs: 15_000 })),
      // Each payout holds a provider call of at least 2 x PROVIDER_LATENCY_MS: the kill lands inside several of them.
      25,
      3,
    );
    stack.providerProxy!.setLatency(0);
    try {
      const replays = await Promise.all(bodies.map((body) => call(restarted.url, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body })));
      expect(replays.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
      first.forEach((answer, index) => {
        if (isAnswer(answer) && answer.status === 200) expect(dataOf(replays[index]).id).toBe(dataOf(answer).id);
      });
      const rows = await stack.sql<{ reference: string; merchant_reference: string }>(`SELECT reference, merchant_reference FROM payouts WHERE vendor_id = $1 AND reference = ANY($2)`, [
        payer.vendor.id,
        bodies.map((body) => body.reference),
      ]);
      expect(rows).toHaveLength(bodies.length);
      const settled = await eventually(
        () => stack.sql<{ status: string; merchant_reference: string }>(`SELECT status, merchant_reference FROM payouts WHERE vendor_id = $1 AND reference = ANY($2)`, [payer.vendor.id, bodies.map((body) => body.reference)]),
        (current) => current.every((row) => PAYOUT_FINAL.includes(row.status)),
        60_000,
        500,
      );
      const witnessed = await Promise.all(settled.map(async (row) => ({ ...row, ...(await stack.witness('merchant_reference', row.merchant_reference)) })));
      expect(witnessed.filter((row) => row.count > 1 || (row.status === 'paid' && row.count !== 1))).toEqual([]);
      figures.payoutGatewayKill = {
        requests: bodies.length,
        answeredBeforeKill: first.filter((answer) => isAnswer(answer)).length,
        cutOff: first.filter((answer) => !isAnswer(answer)).length,
        endStates: witnessed.reduce<Record<string, number>>((tally, row) => ({ ...tally, [row.status]: (tally[row.status] ?? 0) + 1 }), {}),
      };
    } finally {
      await restarted.kill('SIGTERM');
      spawnedOutput.push(restarted.output());
    }
  }, 120_000);

  it('purchase gateway killed mid-request: replays of the same keys answer the original, one transaction per key', async () => {
    // Admission never calls the provider; no need to slow it down here.
    stack.providerProxy!.setLatency(0);
    await stack.startWorker();
    const quotes = await Promise.all(Array.from({ length: 60 }, () => createQuote(stack.purchase.url, buyer.token)));
    const requests = quotes.map((quote) => ({ quote, key: uniqueKey('kill-key'), reference: uniqueKey('kill-ref') }));
    const send = (baseUrl: string, request: (typeof requests)[number]) =>
      attempt(baseUrl, { method: 'POST', path: '/api/v1/transactions', token: buyer.token, headers: { 'idempotency-key': request.key }, body: { quote_id: request.quote.id, reference: request.reference }, timeoutMs: 15_000 });
    const { first, restarted } = await killMidRequest(
      'purchaseGateway',
      requests.map((request) => (baseUrl) => send(baseUrl, request)),
      4,
      5,
    );
    try {
      const replays = await Promise.all(requests.map((request) => send(restarted.url, request)));
      expect(replays.map((answer) => (isAnswer(answer) ? answer.status : answer.error))).toEqual(requests.map(() => 202));
      first.forEach((answer, index) => {
        const replay = replays[index];
        if (isAnswer(answer) && answer.status === 202 && isAnswer(replay)) expect(dataOf(replay).id).toBe(dataOf(answer).id);
      });
      const rows = await stack.sql<{ reference: string; n: number }>(
        `SELECT reference, count(*)::int AS n FROM purchase_transactions WHERE vendor_id = $1 AND reference = ANY($2) GROUP BY reference`,
        [buyer.vendor.id, requests.map((request) => request.reference)],
      );
      expect(rows).toHaveLength(requests.length);
      expect(rows.filter((row) => row.n !== 1)).toEqual([]);
      const replayed = replays.filter((answer) => isAnswer(answer) && answer.headers.get('idempotent-replayed') === 'true').length;
      const answeredBeforeKill = first.filter((answer) => isAnswer(answer) && answer.status === 202).length;
      figures.purchaseGatewayKill = {
        requests: requests.length,
        answeredBeforeKill,
        cutOff: first.filter((answer) => !isAnswer(answer)).length,
        // Committed before the kill but never answered: the replay found them instead of buying again.
        committedButUnanswered: replayed - answeredBeforeKill,
      };
      const settled = await eventually(
        () => stack.sql<{ id: string; status: string }>(`SELECT id::text, status FROM purchase_transactions WHERE vendor_id = $1 AND reference = ANY($2)`, [buyer.vendor.id, requests.map((request) => request.reference)]),
        (current) => current.every((row) => PURCHASE_FINAL.includes(row.status)),
        60_000,
        500,
      );
      const witnessed = await Promise.all(settled.map((row) => stack.witness('external_id', row.id)));
      expect(witnessed.filter((tally) => tally.count !== 1)).toEqual([]);
    } finally {
      await restarted.kill('SIGTERM');
      spawnedOutput.push(restarted.output());
      await stack.stopWorker();
    }
  }, 120_000);
});
