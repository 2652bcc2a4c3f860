import { PurchaseSubmissionClaimsService } from '#purchase';
import { PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

/**
 * Purchases reach the provider through the worker's submission claims (PostgreSQL, `FOR UPDATE
 * SKIP LOCKED`), not through an outbox row and a queue job each. The rounds are run by hand here:
 * the workers start with a claim pause of ten minutes, so after their first round (awaited) only
 * the test's rounds claim; a worker with the usual pace then verifies what they sent.
 */
describe('submission claimed from PostgreSQL', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false });

  const IDLE_WORKER = { PURCHASE_CLAIM_IDLE_MS: '600000' };

  const restartWithUsualPace = async () => {
    await stack.worker?.close();
    stack.worker = undefined;
    await stack.startWorker();
  };

  afterEach(async () => {
    await stack.worker?.close();
    stack.worker = undefined;
  });

  it('rounds racing each other claim each purchase once: one create each, every purchase completed, no outbox row', async () => {
    const worker = await stack.startWorker(IDLE_WORKER);
    await worker.get(PurchaseSubmissionClaimsService).firstRound;
    const bought = [];
    for (let index = 0; index < 12; index++) bought.push(await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(`2782123613${index + 20}`) }));
    const ids = bought.map((one) => one.transaction.id);
    const [{ outbox }] = await stack.db.query(`SELECT count(*)::int AS outbox FROM outbox_messages WHERE job_name = 'purchase.submit' AND payload->>'transactionId' = ANY($1::text[])`, [ids]);
    expect(outbox).toBe(0);

    const claims = worker.get(PurchaseSubmissionClaimsService);
    const rounds = await Promise.all([claims.round(5), claims.round(5), claims.round(5), claims.round(5)]);
    // Four rounds of five over twelve purchases (and any other test's leftovers): every one claimed, none twice.
    expect(rounds.reduce((sum, round) => sum + round.claimed, 0)).toBeGreaterThanOrEqual(12);
    expect(rounds.every((round) => !round.backOff)).toBe(true);
    const claimed = await stack.db.query(`SELECT id, submission_outcome, check_seq FROM purchase_transactions WHERE id = ANY($1::uuid[])`, [ids]);
    expect(claimed.map((row: { submission_outcome: string }) => row.submission_outcome)).toEqual(ids.map(() => 'accepted'));
    // The attempt and the first check of the polling chain were recorded together.
    expect(claimed.every((row: { check_seq: number }) => row.check_seq >= 1)).toBe(true);

    // The idle worker's check and callback rounds wait too: a worker with the usual pace verifies them.
    await restartWithUsualPace();
    for (const id of ids) expect((await settle(stack, vendor, id, ['completed', 'failed'])).status).toBe('completed');
    for (const id of ids) expect(await stack.sandbox.creates(id)).toBe(1);
  }, 60_000);

  it('gives the claim back, sending nothing, while the provider cannot be reached; a later round sends it once', async () => {
    const unreachable = await stack.startWorker({ ...IDLE_WORKER, PURCHASE_PROVIDER_BASE_URL: 'http://127.0.0.1:9' });
    await unreachable.get(PurchaseSubmissionClaimsService).firstRound;
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821236200') });
    const id = bought.transaction.id;

    const round = await unreachable.get(PurchaseSubmissionClaimsService).round(50);
    expect(round.claimed).toBeGreaterThanOrEqual(1);
    expect(round.backOff).toBe(true);
    const [released] = await stack.db.query(`SELECT status, submission_attempted_at, submission_claimed_until, submission_outcome, next_check_at FROM purchase_transactions WHERE id = $1`, [id]);
    expect(released).toEqual({ status: 'pending', submission_attempted_at: null, submission_claimed_until: null, submission_outcome: null, next_check_at: null });
    expect(await stack.sandbox.creates(id)).toBe(0);

    await unreachable.close();
    stack.worker = undefined;
    // A worker that reaches the provider claims it on its first round.
    await stack.startWorker();
    expect((await settle(stack, vendor, id, ['completed', 'failed'])).status).toBe('completed');
    expect(await stack.sandbox.creates(id)).toBe(1);
  }, 60_000);

  it('leaves a purchase leased by a worker that died alone until the lease runs out, then sends it once', async () => {
    const worker = await stack.startWorker(IDLE_WORKER);
    await worker.get(PurchaseSubmissionClaimsService).firstRound;
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821236300') });
    const id = bought.transaction.id;
    // A round of another worker leased it and died during its lookups: nothing was sent.
    await stack.db.query(`UPDATE purchase_transactions SET submission_claimed_until = now() + interval '1 hour' WHERE id = $1`, [id]);
    const claims = worker.get(PurchaseSubmissionClaimsService);
    await claims.round(50);
    const [waiting] = await stack.db.query(`SELECT submission_attempted_at FROM purchase_transactions WHERE id = $1`, [id]);
    expect(waiting.submission_attempted_at).toBeNull();
    expect(await stack.sandbox.creates(id)).toBe(0);

    await stack.db.query(`UPDATE purchase_transactions SET submission_claimed_until = now() - interval '1 second' WHERE id = $1`, [id]);
    await claims.round(50);
    const [sent] = await stack.db.query(`SELECT submission_outcome FROM purchase_transactions WHERE id = $1`, [id]);
    expect(sent.submission_outcome).toBe('accepted');
    await restartWithUsualPace();
    expect((await settle(stack, vendor, id, ['completed', 'failed'])).status).toBe('completed');
    expect(await stack.sandbox.creates(id)).toBe(1);
  }, 60_000);
});
