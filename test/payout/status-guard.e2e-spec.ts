// The repository itself: the guard under test is its statement's WHERE, which no service path
// reaches with a move the status table refuses (the services check the status under the row lock first).
import { PayoutOutcomeRepository } from '../../libs/payout/src/persistence/payout-outcome.repository.js';
import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout } from './payout-requests.js';

/**
 * PayoutOutcomeRepository's guarded status moves (moveStatus) against the real schema: a move
 * from a status the transition table does not allow is refused in the statement, answered as
 * refused (null, false, or nothing for the moves whose callers checked the status themselves),
 * and writes nothing: the payout's row, its provider contacts and its ledger stay as they were.
 */
describe('payout status guard', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack({ worker: false });
    vendor = await stack.vendor({ fundCents: 1_000_000n });
  });
  afterAll(async () => stack?.close());

  /** Everything a status move of the payout could change, as the database holds it. */
  const stored = async (id: string) => ({
    row: (await stack.dataSource.query(`SELECT to_jsonb(p) AS row FROM payouts p WHERE id = $1`, [id]))[0]?.row,
    contacts: await stack.dataSource.query(`SELECT to_jsonb(c) AS contact FROM payout_provider_contacts c WHERE payout_id = $1 ORDER BY c.id`, [id]),
    ledger: await stack.dataSource.query(`SELECT to_jsonb(a) AS account FROM payout_accounts a WHERE vendor_id = $1`, [vendor.vendor.id]),
  });

  it('refuses every move a paid payout may not make, and leaves the payout, its contacts and the ledger as they were', async () => {
    const created = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200);
    const [{ id }] = await stack.dataSource.query(`SELECT id FROM payouts WHERE reference = $1 AND vendor_id = $2`, [created.body.data.reference, vendor.vendor.id]);
    const before = await stored(id);
    expect(before.row.status).toBe('paid');

    const outcomes = stack.gateway.app.get(PayoutOutcomeRepository);
    const refused = await stack.dataSource.transaction(async (manager) => ({
      // pending | needs_review → failed
      failed: await outcomes.markFailed(manager, id, 'provider_rejected'),
      // pending | needs_review → paid (an answer), failed → paid (after release), needs_review → paid (staff)
      paid: await outcomes.markPaid(manager, id, { paidAt: new Date(), providerReference: 'other', fromSubmission: true, deliveryEncrypted: null }),
      paidAfterRelease: await outcomes.markPaidAfterRelease(manager, id, { paidAt: new Date(), providerReference: 'other' }),
      paidByStaff: await outcomes.markPaidByStaff(manager, id),
    }));
    expect(refused).toEqual({ failed: false, paid: null, paidAfterRelease: null, paidByStaff: null });
    // pending → needs_review and pending → cancelled answer nothing: their callers checked the status under the lock.
    await stack.dataSource.transaction(async (manager) => {
      await outcomes.markNeedsReview(manager, id);
      await outcomes.markCancelled(manager, id);
    });

    expect(await stored(id)).toEqual(before);
  });
});
