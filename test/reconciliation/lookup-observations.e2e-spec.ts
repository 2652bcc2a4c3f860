import { PayoutOutcomesService } from '#payout';
import type { PayoutProviderPayment } from '#providers';
import { PurchaseVerificationService } from '#purchase';
import { ReconciliationExceptionsService } from '#reconciliation';
import { mobile, purchase, settle } from '../purchase/purchase-helpers.js';
import { cashPayout } from '../payout/payout-requests.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { eventually as eventuallyPurchase, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { bearer } from '../support/vendors.js';

/**
 * What a verified answer (a lookup or submission answer, not a report line) proves is handled as
 * a report line's proof is, and each disagreement it shows is its own exception (issue 26).
 */
describe('lookup answers as observations', () => {
  describe('payouts', () => {
    let stack: PayoutStack;
    let vendor: PayoutTestVendor;

    beforeAll(async () => {
      stack = await startPayoutStack();
      vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n, name: 'Lookup observations vendor' });
    });
    afterAll(async () => stack?.close());
    afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

    const post = (body: Record<string, unknown>) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body);
    const entries = async (payoutId: string) => (await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [payoutId])).map((row: { kind: string }) => row.kind);
    const available = async () => BigInt((await stack.dataSource.query(`SELECT available_cents::text AS a FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]))[0].a);
    const exceptions = async (payoutId: string) =>
      (await stack.dataSource.query(`SELECT id, kind, status, dedupe_key FROM reconciliation_exceptions WHERE payout_id = $1 ORDER BY raised_at, id`, [payoutId])) as {
        id: string;
        kind: string;
        status: string;
        dedupe_key: string;
      }[];
    const answer = (merchantReference: string, outcome: PayoutProviderPayment['outcome'], found = true): PayoutProviderPayment => ({
      outcome,
      found,
      merchantReference,
      providerStatus: found ? outcome.toUpperCase() : null,
      providerReference: found ? 'late-provider-ref-1' : null,
      amount: found ? '200.00' : null,
      rejectionReason: null,
      paidAt: found ? new Date().toISOString() : null,
      reversedAt: null,
      delivery: null,
      replayed: false,
    });

    it('a verified lookup that finds a released payout paid re-debits it once, however many lookups race', async () => {
      const created = (await post(cashPayout('05')).expect(200)).body.data;
      const failed = await eventually(async () => {
        const [row] = await stack.dataSource.query(`SELECT id, status FROM payouts WHERE merchant_reference = $1`, [created.merchant_reference]);
        expect(row.status).toBe('failed');
        return row as { id: string };
      });
      const before = await available();
      const outcomes = stack.worker.get(PayoutOutcomesService);
      const results = await Promise.all(Array.from({ length: 6 }, () => outcomes.applyProviderPayment(failed.id, answer(created.merchant_reference, 'paid'), false)));
      expect(results.every((payout) => payout?.status === 'paid' && payout.statusReason === 'paid_after_release')).toBe(true);
      expect(await entries(failed.id)).toEqual(['reserve', 'release', 'resettle']);
      expect(await available()).toBe(before - 20_500n);
      expect((await exceptions(failed.id)).map(({ kind, status }) => ({ kind, status }))).toEqual([{ kind: 'paid_after_release', status: 'open' }]);
    });

    it('a staff "failed" resolution the provider contradicts is corrected the same way: paid, re-debited once', async () => {
      // 04: the provider never answers; the payout waits in review until two staff resolve it as failed.
      const created = (await post(cashPayout('04')).expect(200)).body.data;
      const review = await eventually(async () => {
        const [row] = await stack.dataSource.query(`SELECT id, status FROM payouts WHERE merchant_reference = $1`, [created.merchant_reference]);
        expect(row.status).toBe('needs_review');
        return row as { id: string };
      });
      const outcomes = stack.worker.get(PayoutOutcomesService);
      // What an approved four-eyes proposal runs (the back-office's approval transaction).
      const resolved = await stack.dataSource.transaction((manager) => outcomes.resolveByStaff(manager, review.id, 'failed'));
      expect(resolved.resolved).toBe(true);
      const before = await available();
      // The provider then answers: it paid.
      await outcomes.applyProviderPayment(review.id, answer(created.merchant_reference, 'paid'), false);
      await outcomes.applyProviderPayment(review.id, answer(created.merchant_reference, 'paid'), false);
      const [payout] = await stack.dataSource.query(`SELECT status, status_reason FROM payouts WHERE id = $1`, [review.id]);
      expect(payout).toEqual({ status: 'paid', status_reason: 'paid_after_release' });
      expect(await entries(review.id)).toEqual(['reserve', 'release', 'resettle']);
      expect(await available()).toBe(before - 20_500n);
      expect((await exceptions(review.id)).map(({ kind }) => kind)).toEqual(['paid_after_release']);
    });

    it('a resolved status_conflict does not hide the same disagreement seen again: a new exception, joined while open', async () => {
      const paid = (await post(cashPayout('55')).expect(200)).body.data;
      const [row] = await stack.dataSource.query(`SELECT id FROM payouts WHERE merchant_reference = $1`, [paid.merchant_reference]);
      const outcomes = stack.worker.get(PayoutOutcomesService);
      const notFound = () => outcomes.applyProviderPayment(row.id, answer(paid.merchant_reference, 'unknown', false), false);
      await notFound();
      await notFound();
      const [first] = await exceptions(row.id);
      expect(first).toMatchObject({ kind: 'status_conflict', status: 'open', dedupe_key: `payout:${row.id}:status_conflict` });
      expect(await exceptions(row.id)).toHaveLength(1);

      expect(await stack.worker.get(ReconciliationExceptionsService).resolve(first.id, 'ops.thabo', 'provider says their lookup index lagged')).toBe(true);
      await notFound();
      await notFound();
      expect((await exceptions(row.id)).map(({ kind, status, dedupe_key }) => ({ kind, status, dedupe_key }))).toEqual([
        { kind: 'status_conflict', status: 'resolved', dedupe_key: `payout:${row.id}:status_conflict` },
        { kind: 'status_conflict', status: 'open', dedupe_key: `payout:${row.id}:status_conflict#2` },
      ]);
      expect(await entries(row.id)).toEqual(['reserve', 'settle']);
    });
  });

  describe('purchases', () => {
    let stack: PurchaseStack;
    let vendor: TestVendor;

    beforeAll(async () => {
      stack = await startPurchaseStack();
      vendor = await stack.vendor({ name: 'Lookup mismatch vendor' });
    });
    afterAll(async () => stack?.close());

    const buy = async (suffix: string) => (await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(`277212345${suffix}`) })).transaction.id as string;
    const row = async (id: string) =>
      (await stack.db.query(`SELECT status, next_check_at, provider_transaction_id::text AS provider_transaction_id FROM purchase_transactions WHERE id = $1`, [id]))[0];

    it('a lookup that answers with another external id raises reference_mismatch and sends the purchase to review instead of asking again for ever', async () => {
      const other = await buy('55');
      await settle(stack, vendor, other, ['completed']);
      const otherProviderId = (await row(other)).provider_transaction_id as string;
      // 05: the provider keeps it in progress; we still poll it.
      const ours = await buy('05');
      await eventuallyPurchase(() => row(ours), (value) => value.provider_transaction_id !== null);
      // The provider's id we hold now names another transaction: its lookup answers with the other external id.
      await stack.db.query(`UPDATE purchase_transactions SET provider_transaction_id = $2 WHERE id = $1`, [ours, otherProviderId]);
      const verification = stack.worker!.get(PurchaseVerificationService);
      await verification.verify({ transactionId: ours, reason: 'manual', requestedAt: Date.now() });
      await verification.verify({ transactionId: ours, reason: 'manual', requestedAt: Date.now() });

      const raised = (await stack.db.query(`SELECT kind, status, dedupe_key, details FROM reconciliation_exceptions WHERE purchase_transaction_id = $1`, [ours])) as {
        kind: string;
        status: string;
        dedupe_key: string;
        details: Record<string, unknown>;
      }[];
      expect(raised).toEqual([
        expect.objectContaining({
          kind: 'reference_mismatch',
          status: 'open',
          dedupe_key: `purchase:${ours}:reference_mismatch:lookup`,
          details: expect.objectContaining({ via: 'lookup', answered_external_id: other, provider_transaction_id: otherProviderId }),
        }),
      ]);
      expect(await row(ours)).toMatchObject({ status: 'review', next_check_at: null });
    });
  });
});
