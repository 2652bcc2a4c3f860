import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { formatCents } from '#money';
import { PayoutOutcomesService } from '#payout';
import { PayoutRepository } from '../../libs/payout/src/persistence/payout.repository.js';
import type { PayoutProviderPayment } from '#providers';
import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout } from './payout-requests.js';

/**
 * A paid cash payout is five statements on the gateway's pool (the admission read, the phase-1
 * statement, and the verdict's transaction of one statement), and the one-statement verdict
 * applies only to the payout as the request left it.
 */
describe('a single payout’s statements', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    // No worker: its polls and relay would share the process's statements.
    stack = await startPayoutStack({ worker: false });
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const post = (body: unknown) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body as object);

  it('a paid cash payout makes five statements on the pool, its delivery audit and replay NOTIFY included', async () => {
    // The first request of a token reads the token; the second is counted.
    await post(cashPayout('55')).expect(200);
    const statements: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function counted(this: pg.Client, config: unknown, ...rest: unknown[]) {
      const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
      // `SELECT 1` is the listening connections' barrier and heartbeat, not the pool's.
      if (typeof text === 'string' && text !== 'SELECT 1') statements.push(text.replace(/\s+/g, ' ').trim().slice(0, 60));
      return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
    } as typeof query;
    let body: { data: { id: string; status: string; delivery: unknown } };
    try {
      body = (await post(cashPayout('55')).expect(200)).body;
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(body.data).toMatchObject({ status: 'paid', delivery: { pin: expect.any(String) } });
    expect(statements).toHaveLength(5);
    expect(statements[2]).toBe('START TRANSACTION');
    expect(statements[4]).toBe('COMMIT');
    // What the verdict's one statement wrote besides the payout.
    const [row] = await stack.dataSource.query(
      `SELECT (SELECT count(*) FROM payout_delivery_reads WHERE payout_id = $1)::int AS reads,
              (SELECT count(*) FROM webhook_events WHERE resource_id = $1 AND type = 'payout.paid')::int AS events,
              (SELECT count(*) FROM payout_provider_contacts WHERE payout_id = $1)::int AS contacts,
              (SELECT count(*) FROM ledger_entries WHERE payout_id = $1 AND kind = 'settle')::int AS settles`,
      [body.data.id],
    );
    expect(row).toEqual({ reads: 1, events: 1, contacts: 1, settles: 1 });
  });

  it('a phase-1 statement for a reference already committed writes nothing and leaves the account row alone', async () => {
    const created = (await post(cashPayout('55')).expect(200)).body.data;
    const payouts = stack.gateway.app.get(PayoutRepository);
    const stored = (await payouts.findByReference(vendor.vendor.id, created.reference))!;
    const balances = () => stack.dataSource.query(`SELECT available_cents::text AS available, reserved_cents::text AS reserved, updated_at FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]);
    const before = await balances();
    const id = randomUUID();
    const again = await payouts.admitSingle(
      {
        id,
        vendorId: stored.vendorId,
        reference: stored.reference,
        batchId: null,
        batchPosition: null,
        method: stored.method,
        amountCents: stored.amountCents,
        feeCents: stored.feeCents,
        merchantReference: `GW_PO_${id.replace(/-/g, '').toUpperCase()}`,
        recipientEncrypted: stored.recipientEncrypted,
        metadata: null,
        requestFingerprint: stored.requestFingerprint,
        statusReason: 'submitting',
        submissionStartedAt: new Date(),
        nextPollAt: new Date(),
      },
      { payoutId: id, cents: stored.amountCents + stored.feeCents },
    );
    expect(again).toEqual({ admitted: null, referenceTaken: true });
    // Not even locked and rolled back: updated_at would have moved.
    expect(await balances()).toEqual(before);
  });

  it('a paid answer for a payout a status poll already closed is applied the general way: no second settlement or event', async () => {
    // Timed out (test value 02): pending, awaiting the provider.
    const created = (await post(cashPayout('02')).expect(200)).body.data;
    expect(created.status).toBe('pending');
    const payouts = stack.gateway.app.get(PayoutRepository);
    const outcomes = stack.gateway.app.get(PayoutOutcomesService);
    const stale = (await payouts.findByReference(vendor.vendor.id, created.reference))!;
    const payment: PayoutProviderPayment = {
      outcome: 'paid',
      found: true,
      merchantReference: stale.merchantReference,
      providerStatus: 'PAID',
      providerReference: 'provider-ref-from-poll',
      amount: formatCents(stale.amountCents),
      rejectionReason: null,
      paidAt: new Date().toISOString(),
      reversedAt: null,
      delivery: null,
      replayed: true,
    };
    // A status poll found it paid first.
    expect((await outcomes.applyProviderPayment(stale.id, payment, false))?.status).toBe('paid');

    const verdict = await outcomes.applySubmissionPayment(stale, payment, { notifyChannel: 'payout_submission_answered', deliveryRead: null });
    expect(verdict.followedUp).toBe(false);
    expect(verdict.payout).toMatchObject({ status: 'paid', providerReference: 'provider-ref-from-poll' });
    const [row] = await stack.dataSource.query(
      `SELECT (SELECT count(*) FROM webhook_events WHERE resource_id = $1 AND type = 'payout.paid')::int AS events,
              (SELECT count(*) FROM ledger_entries WHERE payout_id = $1 AND kind = 'settle')::int AS settles,
              (SELECT count(*) FROM payout_provider_contacts WHERE payout_id = $1 AND kind = 'submission' AND outcome = 'paid')::int AS answers`,
      [stale.id],
    );
    expect(row).toEqual({ events: 1, settles: 1, answers: 1 });
  });
});
