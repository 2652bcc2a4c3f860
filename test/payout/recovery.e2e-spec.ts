import { FieldEncryption } from '#common';
import { PayoutRails, PayoutSubmissionService, PayoutWorkSweepService, recipientContext, type StoredRecipient } from '#payout';
import { PayoutRepository } from '../../libs/payout/src/persistence/payout.repository.js';
import { jobSpec, QueueProducer } from '#queues';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, uniqueReference } from './payout-requests.js';

/**
 * What happens when a worker dies or Redis loses jobs: the submission marker and PostgreSQL
 * carry the truth, so nothing is ever submitted twice and nothing is left behind.
 */
describe('recovery from a dead worker and lost jobs', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    // The worker starts only once the crash scenarios are staged.
    stack = await startPayoutStack({ worker: false });
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  it('never submits a batch item twice: one submitted before the crash is looked up; one claimed but never sent is proven absent and released once', async () => {
    const reference = uniqueReference('crash');
    const items = [cashPayout(), cashPayout(), cashPayout()];
    const accountBefore = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference, payouts: items }).expect(202);
    const repository = stack.gateway.app.get(PayoutRepository);
    const [sent, lost, untouched] = await Promise.all(items.map(async (item) => (await repository.findByReference(vendor.vendor.id, item.reference))!));

    // A worker claimed the first item and the provider paid it, but the worker died before recording the answer.
    const submitter = stack.gateway.app.get(PayoutSubmissionService);
    expect(await submitter.claimSubmission(sent.id)).toBe(true);
    const recipient = stack.gateway.app.get(FieldEncryption).decryptJson<StoredRecipient>(sent.recipientEncrypted, recipientContext(sent.id));
    await stack.gateway.app.get(PayoutRails).submit({ method: sent.method, merchantReference: sent.merchantReference, amount: '200.00', recipient, vendorSlug: vendor.vendor.slug });
    // Another claimed the second item and died between the commit and the provider call.
    expect(await submitter.claimSubmission(lost.id)).toBe(true);
    // A claim is taken once.
    expect(await submitter.claimSubmission(lost.id)).toBe(false);

    await stack.startWorker();
    // The lost item goes to needs_review when its window ends, and is still looked up there: once
    // the attempt's bound and the settle period have passed, two lookups finding nothing prove the
    // provider never received it.
    const batch = await eventually(async () => {
      const body = (await stack.gateway.http().get(`/api/v1/batches/${reference}`).set(bearer(vendor.token)).expect(200)).body.data;
      expect(body.payouts.map((p: { status: string }) => p.status)).toEqual(['paid', 'failed', 'paid']);
      return body;
    }, 30_000, 200);
    expect(batch.status).toBe('completed_with_failures');
    expect(batch.payouts[1].status_reason).toBe('not_received_by_provider');
    const review: Array<{ review_at: Date | null }> = await stack.dataSource.query(`SELECT review_at FROM payouts WHERE id = $1`, [lost.id]);
    expect(review[0].review_at).not.toBeNull();
    expect(await stack.submissions(sent.merchantReference)).toEqual({ count: 1, duplicate_attempts: 0 });
    expect(await stack.submissions(lost.merchantReference)).toEqual({ count: 0, duplicate_attempts: 0 });
    expect(await stack.submissions(untouched.merchantReference)).toEqual({ count: 1, duplicate_attempts: 0 });
    // The lost item's hold (200.00 + 1.00) came back once: nothing stays reserved, available fell by the two paid items only.
    const kinds: Array<{ kind: string }> = await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [lost.id]);
    expect(kinds.map((entry) => entry.kind)).toEqual(['reserve', 'release']);
    const account = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    expect(account.reserved).toBe(accountBefore.reserved);
    expect(BigInt(accountBefore.available.replace('.', '')) - BigInt(account.available.replace('.', ''))).toBe(2n * 20_100n);
  });

  it('rebuilds a status poll that Redis lost, from PostgreSQL', async () => {
    await stack.startWorker();
    const request = cashPayout('02');
    const created = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(request).expect(200)).body.data;
    expect(created.status).toBe('pending');
    // Redis loses the first poll (scheduled for after the provider timeout): gone from the queue, and the outbox says it was relayed.
    const { id: firstPoll } = jobSpec('payout.poll-status', { payoutId: created.id, link: 0 });
    await eventually(async () => {
      const [row] = await stack.dataSource.query(`SELECT dispatched_at FROM outbox_messages WHERE job_id = $1`, [firstPoll]);
      expect(row.dispatched_at).not.toBeNull();
    });
    expect(await stack.worker.get(QueueProducer).queue('payout-status').remove(firstPoll)).toBe(1);
    // Nothing resolves it: once the lost poll is overdue (by PostgreSQL's clock, not a fixed
    // sleep), the payout is still pending and its chain still waits on that first link.
    await eventually(async () => {
      const [row] = await stack.dataSource.query(`SELECT next_poll_at < now() - interval '500 milliseconds' AS overdue FROM payouts WHERE id = $1`, [created.id]);
      expect(row.overdue).toBe(true);
    });
    const [stalled] = await stack.dataSource.query(`SELECT status, poll_count FROM payouts WHERE id = $1`, [created.id]);
    expect(stalled).toEqual({ status: 'pending', poll_count: 0 });
    // ...until the sweeper finds the overdue poll in PostgreSQL. The run's database also holds the
    // payouts of earlier suites, whose stacks are gone and some of which are still due a poll; the
    // sweeper takes the 500 most overdue per sweep, so reaching this one may take more than one
    // sweep, as it would with a backlog in production.
    const sweeper = stack.worker.get(PayoutWorkSweepService);
    expect(await sweeper.sweep(0)).toBeGreaterThanOrEqual(1);
    await eventually(async () => {
      const current = (await stack.gateway.http().get(`/api/v1/payouts/${request.reference}`).set(bearer(vendor.readWriteToken)).expect(200)).body.data;
      if (current.status === 'pending') await sweeper.sweep(0);
      expect(current.status).toBe('paid');
    }, 30_000, 250);
    expect(await stack.submissions(created.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
  });
});
