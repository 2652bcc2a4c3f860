import { jest } from '@jest/globals';
import { PayoutRepository } from '../../libs/payout/src/persistence/payout.repository.js';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout } from './payout-requests.js';

/**
 * A replay of a payout whose provider call is still under way answers the original's verdict,
 * and waits for it on the original's announcement (LISTEN/NOTIFY) instead of reading the payout
 * again and again. The provider here takes 1.5 s to answer (test value 02 hangs, the timeout is
 * longer), so the replay surely arrives while the submission is in flight.
 */
describe('replay of a payout still in flight', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack({ config: { PAYOUT_PROVIDER_TIMEOUT_MS: '4000' }, sandbox: { timeoutHangMs: 1_500 } });
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const post = (body: unknown) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body as object);

  it('answers the final verdict once the original finishes, reading the payout only a few times while it waits', async () => {
    const request = cashPayout('02');
    const original = post(request).then((response) => response);
    // The original has committed its payout and is now waiting for the provider.
    await eventually(async () => {
      const rows: Array<{ status_reason: string }> = await stack.dataSource.query(`SELECT status_reason FROM payouts WHERE vendor_id = $1 AND reference = $2`, [
        vendor.vendor.id,
        request.reference,
      ]);
      expect(rows[0]?.status_reason).toBe('submitting');
    }, 10_000, 20);

    const repository = stack.gateway.app.get(PayoutRepository);
    const reads = jest.spyOn(repository, 'findByReference');
    // The lookup of the reference is part of the admission's one read.
    const admissionReads = jest.spyOn(repository, 'admissionSnapshot');
    try {
      const replay = await post(request).expect(200);
      const first = await original;
      expect(first.status).toBe(200);
      // The provider answered PAID after its delay: both answers carry that verdict, from one submission.
      expect(first.body.data).toMatchObject({ status: 'paid', status_reason: null });
      expect(replay.body).toEqual(first.body);
      expect(await stack.submissions(first.body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
      // The replay's own reads: the lookup of the reference, one before waiting, one when woken.
      // Reading every 50 ms for the provider's 1.5 s would have been about 30.
      expect(reads.mock.calls.length + admissionReads.mock.calls.length).toBeLessThanOrEqual(4);
    } finally {
      reads.mockRestore();
      admissionReads.mockRestore();
    }
  });

  it('a replay of an answered payout reads it once and does not wait', async () => {
    const request = cashPayout('55');
    const first = await post(request).expect(200);
    const repository = stack.gateway.app.get(PayoutRepository);
    const reads = jest.spyOn(repository, 'findByReference');
    // The lookup of the reference is part of the admission's one read.
    const admissionReads = jest.spyOn(repository, 'admissionSnapshot');
    try {
      expect((await post(request).expect(200)).body).toEqual(first.body);
      expect(reads.mock.calls.length + admissionReads.mock.calls.length).toBe(1);
    } finally {
      reads.mockRestore();
      admissionReads.mockRestore();
    }
  });
});
