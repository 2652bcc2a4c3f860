import { PayoutOutcomesService, PayoutRails } from '#payout';
import { FourEyes } from '#staff';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, staffSignIn, type StaffPerson, type StaffSignedIn } from '../support/back-office.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout } from '../payout/payout-requests.js';

const SANDBOX_KEY = { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' };

/**
 * The review queues against the real gateways, worker and sandbox: a purchase driven to `review`
 * (sandbox 05) and a payout driven to `needs_review` (sandbox 04) appear oldest first with their
 * provider history; "check now" resolves them once the sandbox can answer; a manual resolution
 * needs a second person, moves money once (ledger, reservation, allowance: the invariant checker
 * agrees) and is refused when the provider has proved the other outcome. The checker also
 * catches a resolution without an approval and one the provider later contradicts.
 */
describe('back-office review queues', () => {
  let stack: ReliabilityStack;
  let backOffice: RunningApp;
  let purchaseVendor: TestVendor;
  let payoutVendor: TestVendor;
  let operator: StaffPerson;
  let approver: StaffPerson;
  let secondApprover: StaffPerson;
  let support: StaffPerson;
  const session: Record<'operator' | 'approver' | 'secondApprover' | 'support', StaffSignedIn> = {} as never;

  beforeAll(async () => {
    // Payouts in needs_review are looked up again only after an hour, so only "check now" (or staff) can close them here.
    stack = await startReliabilityStack({ config: { PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000' } });
    await stack.startWorker();
    // Fundings up to R100.00 need one person; the R500.00 funding below stays under four eyes.
    backOffice = await startBackOffice({ config: { ...stack.env, STAFF_FOUR_EYES_ABOVE_CENTS: '10000' } });
    purchaseVendor = await stack.purchaseVendor({ name: 'Review queue purchases' });
    payoutVendor = await stack.payoutVendor({ name: 'Review queue payouts', fundCents: 1_000_000n });
    operator = await createStaffUser(backOffice.app, 'operator');
    approver = await createStaffUser(backOffice.app, 'approver');
    secondApprover = await createStaffUser(backOffice.app, 'approver');
    support = await createStaffUser(backOffice.app, 'support');
    session.operator = await staffSignIn(backOffice.http, operator);
    session.approver = await staffSignIn(backOffice.http, approver);
    session.secondApprover = await staffSignIn(backOffice.http, secondApprover);
    session.support = await staffSignIn(backOffice.http, support);
  }, 120_000);

  afterAll(async () => {
    await backOffice?.close();
    await closeCheckingBooks(stack, () => [purchaseVendor.vendor.id, payoutVendor.vendor.id]);
  });

  // An approval of a money proposal is the confirmed second step, with the approver's reason.
  const confirmedApproval = (path: string) => (path.endsWith('/approve') ? { confirmed: 'yes', reason: 'Checked the evidence on the proposal page' } : {});
  const form = (who: keyof typeof session, path: string, fields: Record<string, string> = {}) =>
    backOffice.http().post(path).set('Cookie', session[who].cookie).type('form').send({ _csrf: session[who].csrf, ...confirmedApproval(path), ...fields });
  const page = (who: keyof typeof session, path: string) => backOffice.http().get(path).set('Cookie', session[who].cookie);

  async function purchaseInReview(): Promise<{ id: string; reference: string }> {
    const quote = await createQuote(stack.purchase.url, purchaseVendor.token, airtimeQuote('05'));
    const reference = uniqueKey('review');
    const bought = await buy(stack.purchase.url, purchaseVendor.token, quote.id, uniqueKey('key'), reference);
    expect(bought.status).toBe(202);
    const id = dataOf(bought).id as string;
    await eventually(async () => (await stack.sql<{ status: string }>(`SELECT status FROM purchase_transactions WHERE id = $1`, [id]))[0].status, (status) => status === 'review', 30_000, 200);
    return { id, reference };
  }

  async function payoutInReview(): Promise<{ id: string; reference: string; merchantReference: string }> {
    const request = cashPayout('04', { amount: '300.00' });
    const created = await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payoutVendor.token, body: request });
    expect(created.status).toBe(200);
    const [row] = await eventually(
      () => stack.sql<{ id: string; status: string; merchant_reference: string }>(`SELECT id, status, merchant_reference FROM payouts WHERE vendor_id = $1 AND reference = $2`, [payoutVendor.vendor.id, request.reference]),
      (rows) => rows[0]?.status === 'needs_review',
      30_000,
      200,
    );
    return { id: row.id, reference: request.reference, merchantReference: row.merchant_reference };
  }

  const purchaseStatus = async (id: string) => (await stack.sql<{ status: string; allowance_returned_at: Date | null }>(`SELECT status, allowance_returned_at FROM purchase_transactions WHERE id = $1`, [id]))[0];
  const payoutStatus = async (id: string) => (await stack.sql<{ status: string; status_reason: string | null }>(`SELECT status, status_reason FROM payouts WHERE id = $1`, [id]))[0];
  const ledgerKinds = async (payoutId: string) =>
    (await stack.sql<{ kind: string }>(`SELECT e.kind FROM ledger_entries e WHERE e.payout_id = $1 ORDER BY e.id`, [payoutId])).map((row) => row.kind);
  const settlePurchase = (id: string, status: 'COMPLETED' | 'DECLINED') =>
    fetch(`${stack.sandbox.url}/__sandbox/purchase/settle-late`, { method: 'POST', headers: SANDBOX_KEY, body: JSON.stringify({ external_id: id, status }) });
  const settlePayout = (merchantReference: string, status: 'PAID' | 'REJECTED') =>
    fetch(`${stack.sandbox.url}/__sandbox/payouts/bank_a_instant_money/${merchantReference}/settle`, { method: 'POST', headers: SANDBOX_KEY, body: JSON.stringify({ status }) });
  const proposalIdOf = (location: string) => location.split('/').pop()!;

  it('lists a purchase in review (sandbox 05) with vendor, amount and its history; "check now" resolves it once the provider answers', async () => {
    const purchase = await purchaseInReview();
    const queue = await page('support', '/queues/purchases');
    expect(queue.status).toBe(200);
    expect(queue.text).toContain(purchase.reference);
    expect(queue.text).toContain('Review queue purchases');
    const detail = await page('support', `/queues/purchases/${purchase.id}`);
    expect(detail.text).toMatch(/pending → review/);
    // Support reads only: no check, no proposal.
    expect((await form('support', `/queues/purchases/${purchase.id}/check`)).status).toBe(403);

    // The provider still says SUBMITTED: a check changes nothing.
    expect((await form('operator', `/queues/purchases/${purchase.id}/check`)).status).toBe(200);
    expect((await settlePurchase(purchase.id, 'COMPLETED')).status).toBe(200);
    expect((await form('operator', `/queues/purchases/${purchase.id}/check`)).status).toBe(200);
    await eventually(() => purchaseStatus(purchase.id), (row) => row.status === 'completed', 20_000, 200);
    const audit = await stack.sql<{ action: string; actor_staff_id: string }>(`SELECT action, actor_staff_id FROM staff_audit_events WHERE subject_id = $1 ORDER BY id`, [purchase.id]);
    expect(audit).toEqual([
      { action: 'purchase.check_requested', actor_staff_id: operator.id },
      { action: 'purchase.check_requested', actor_staff_id: operator.id },
    ]);
    expect((await page('support', '/queues/purchases')).text).not.toContain(purchase.reference);
  });

  it('resolves a purchase as failed only with a second approver, returning the allowance once', async () => {
    const purchase = await purchaseInReview();
    // A reason is required.
    expect((await form('approver', `/queues/purchases/${purchase.id}/propose`, { outcome: 'failed', reason: 'short' })).status).toBe(400);
    const proposed = await form('approver', `/queues/purchases/${purchase.id}/propose`, { outcome: 'failed', reason: 'Provider confirmed by phone: never processed' });
    expect(proposed.status).toBe(303);
    const proposalId = proposalIdOf(proposed.headers.location);
    // An operator may not approve at all (403); the proposing approver may not approve their own (409); nothing moved.
    expect((await form('operator', `/proposals/${proposalId}/approve`)).status).toBe(403);
    expect((await form('approver', `/proposals/${proposalId}/approve`)).status).toBe(409);
    expect((await purchaseStatus(purchase.id)).status).toBe('review');

    expect((await form('secondApprover', `/proposals/${proposalId}/approve`)).status).toBe(200);
    const after = await purchaseStatus(purchase.id);
    expect(after.status).toBe('failed');
    expect(after.allowance_returned_at).not.toBeNull();
    // Once: a second approval changes nothing.
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`)).status).toBe(409);
    const [resolution] = await stack.sql(`SELECT outcome, proposal_id FROM staff_manual_resolutions WHERE item_id = $1`, [purchase.id]);
    expect(resolution).toEqual({ outcome: 'failed', proposal_id: proposalId });
    const [record] = await stack.sql<{ actor_staff_id: string; approved_by_staff_id: string; reason: string }>(
      `SELECT actor_staff_id, approved_by_staff_id, reason FROM staff_audit_events WHERE action = 'purchase.resolved' AND subject_id = $1`,
      [purchase.id],
    );
    expect(record).toEqual({ actor_staff_id: approver.id, approved_by_staff_id: secondApprover.id, reason: 'Provider confirmed by phone: never processed' });
    const detail = await page('support', `/queues/purchases/${purchase.id}`);
    expect(detail.text).toContain('purchase.resolved');
  });

  it('refuses a manual resolution the provider has since disproved', async () => {
    const purchase = await purchaseInReview();
    const proposed = await form('operator', `/queues/purchases/${purchase.id}/propose`, { outcome: 'failed', reason: 'Looks lost, provider support unreachable' });
    const proposalId = proposalIdOf(proposed.headers.location);
    expect((await settlePurchase(purchase.id, 'COMPLETED')).status).toBe(200);
    expect((await form('approver', `/queues/purchases/${purchase.id}/check`)).status).toBe(200);
    await eventually(() => purchaseStatus(purchase.id), (row) => row.status === 'completed', 20_000, 200);

    const refused = await form('approver', `/proposals/${proposalId}/approve`);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('completed now');
    expect(await purchaseStatus(purchase.id)).toEqual({ status: 'completed', allowance_returned_at: null });
    expect((await stack.sql<{ status: string }>(`SELECT status FROM staff_proposals WHERE id = $1`, [proposalId]))[0].status).toBe('refused');
    expect(await stack.sql(`SELECT 1 FROM staff_manual_resolutions WHERE item_id = $1`, [purchase.id])).toHaveLength(0);
  });

  it('lists a payout in needs_review (sandbox 04) with its provider trail; "check now" closes it once the provider answers', async () => {
    const payout = await payoutInReview();
    const queue = await page('support', '/queues/payouts');
    expect(queue.text).toContain(payout.reference);
    const detail = await page('support', `/queues/payouts/${payout.id}`);
    expect(detail.text).toContain('Submissions and lookups');
    expect(detail.text).toMatch(/<td>submission<\/td>/);
    expect((await settlePayout(payout.merchantReference, 'REJECTED')).status).toBe(200);
    expect((await form('operator', `/queues/payouts/${payout.id}/check`)).status).toBe(200);
    await eventually(() => payoutStatus(payout.id), (row) => row.status === 'failed', 20_000, 200);
    expect(await ledgerKinds(payout.id)).toEqual(['reserve', 'release']);
  });

  it('resolves a payout as paid with a second approver: the hold is settled exactly once', async () => {
    const payout = await payoutInReview();
    const [before] = await stack.sql<{ reserved_cents: string }>(`SELECT reserved_cents::text FROM payout_accounts WHERE vendor_id = $1`, [payoutVendor.vendor.id]);
    const proposed = await form('approver', `/queues/payouts/${payout.id}/propose`, { outcome: 'paid', reason: 'Bank statement shows the cash-send collected' });
    const proposalId = proposalIdOf(proposed.headers.location);
    expect((await form('approver', `/proposals/${proposalId}/approve`)).status).toBe(409);
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`)).status).toBe(200);
    expect(await payoutStatus(payout.id)).toEqual({ status: 'paid', status_reason: 'resolved_by_staff' });
    expect(await ledgerKinds(payout.id)).toEqual(['reserve', 'settle']);
    const [after] = await stack.sql<{ reserved_cents: string }>(`SELECT reserved_cents::text FROM payout_accounts WHERE vendor_id = $1`, [payoutVendor.vendor.id]);
    expect(BigInt(before.reserved_cents) - BigInt(after.reserved_cents)).toBe(30_000n);
    expect((await form('approver', `/proposals/${proposalId}/approve`)).status).toBe(409);
    expect(await ledgerKinds(payout.id)).toEqual(['reserve', 'settle']);
  });

  it('refuses to resolve a payout as failed once the provider has answered paid', async () => {
    const payout = await payoutInReview();
    const proposed = await form('operator', `/queues/payouts/${payout.id}/propose`, { outcome: 'failed', reason: 'Recipient says nothing arrived' });
    const proposalId = proposalIdOf(proposed.headers.location);
    expect((await settlePayout(payout.merchantReference, 'PAID')).status).toBe(200);
    expect((await form('operator', `/queues/payouts/${payout.id}/check`)).status).toBe(200);
    await eventually(() => payoutStatus(payout.id), (row) => row.status === 'paid', 20_000, 200);
    const refused = await form('approver', `/proposals/${proposalId}/approve`);
    expect(refused.status).toBe(409);
    expect(await ledgerKinds(payout.id)).toEqual(['reserve', 'settle']);
  });

  it('one owner works a review item: others see who, notes are append-only, reassigning hands it over, only the owner proposes; every step audited', async () => {
    const purchase = await purchaseInReview();
    const item = `/queues/purchases/${purchase.id}`;
    const rowOf = (text: string, reference: string) => text.split('<tr>').find((row) => row.includes(reference)) ?? '';
    // Support reads only.
    expect((await form('support', `${item}/claim`)).status).toBe(403);
    expect((await form('support', `${item}/notes`, { note: 'support cannot write' })).status).toBe(403);
    expect(rowOf((await page('support', '/queues/purchases')).text, purchase.reference)).toContain('<td>nobody</td>');

    expect((await form('operator', `${item}/claim`)).status).toBe(303);
    expect(rowOf((await page('support', '/queues/purchases')).text, purchase.reference)).toContain(`<td>${operator.email}</td>`);
    expect((await page('support', item)).text).toContain(`id="owner">${operator.email}, since`);
    // Another person can neither take it, nor unclaim it, nor propose its resolution.
    const taken = await form('approver', `${item}/claim`);
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`${operator.email} owns this purchase`);
    expect((await form('approver', `${item}/unclaim`)).status).toBe(409);
    const notOwner = await form('approver', `${item}/propose`, { outcome: 'failed', reason: 'Provider confirmed by phone: never processed' });
    expect(notOwner.status).toBe(409);
    expect(notOwner.text).toContain('only its owner resolves it');
    expect(await stack.sql(`SELECT 1 FROM staff_proposals WHERE subject_id = $1`, [purchase.id])).toHaveLength(0);

    // Notes from both, kept with author and time; an empty one is refused.
    expect((await form('operator', `${item}/notes`, { note: 'Called the provider, ticket 5512 opened' })).status).toBe(303);
    expect((await form('approver', `${item}/notes`, { note: 'Vendor asked for an answer by Friday' })).status).toBe(303);
    expect((await form('approver', `${item}/notes`, { note: '   ' })).status).toBe(400);
    const notes = await stack.sql<{ author: string; author_staff_id: string; body: string }>(`SELECT author, author_staff_id, body FROM staff_item_notes WHERE subject_type = 'purchase' AND subject_id = $1 ORDER BY id`, [purchase.id]);
    expect(notes).toEqual([
      { author: operator.email, author_staff_id: operator.id, body: 'Called the provider, ticket 5512 opened' },
      { author: approver.email, author_staff_id: approver.id, body: 'Vendor asked for an answer by Friday' },
    ]);
    expect((await page('support', item)).text).toMatch(/Called the provider, ticket 5512 opened[\s\S]*Vendor asked for an answer by Friday/);
    // The database refuses to edit or remove a note, whoever asks.
    await expect(stack.sql(`UPDATE staff_item_notes SET body = 'edited' WHERE subject_id = $1`, [purchase.id])).rejects.toThrow(/append-only/);
    await expect(stack.sql(`DELETE FROM staff_item_notes WHERE subject_id = $1`, [purchase.id])).rejects.toThrow(/append-only/);

    // Reassigned to the approver, who now proposes; the operator no longer can.
    expect((await form('operator', `${item}/reassign`, { owner: support.id })).status).toBe(400);
    expect((await form('operator', `${item}/reassign`, { owner: approver.id })).status).toBe(303);
    const [claim] = await stack.sql<{ owner_staff_id: string }>(`SELECT owner_staff_id FROM staff_item_claims WHERE subject_type = 'purchase' AND subject_id = $1`, [purchase.id]);
    expect(claim.owner_staff_id).toBe(approver.id);
    expect((await form('operator', `${item}/propose`, { outcome: 'failed', reason: 'Provider confirmed by phone: never processed' })).status).toBe(409);
    const proposed = await form('approver', `${item}/propose`, { outcome: 'failed', reason: 'Provider confirmed by phone: never processed' });
    expect(proposed.status).toBe(303);
    const proposalId = proposalIdOf(proposed.headers.location);

    const trail = await stack.sql<{ action: string; actor_staff_id: string; details: Record<string, unknown> }>(
      `SELECT action, actor_staff_id, details FROM staff_audit_events WHERE subject_type = 'purchase' AND subject_id = $1 ORDER BY id`,
      [purchase.id],
    );
    expect(trail.map((record) => [record.action, record.actor_staff_id])).toEqual([
      ['purchase.claimed', operator.id],
      ['purchase.noted', operator.id],
      ['purchase.noted', approver.id],
      ['purchase.reassigned', operator.id],
      ['proposal.created', approver.id],
    ]);
    expect(trail[1].details).toMatchObject({ note: 'Called the provider, ticket 5512 opened' });
    expect(trail[3].details).toMatchObject({ from: operator.email, to: approver.email });
    expect((await form('approver', `/proposals/${proposalId}/withdraw`)).status).toBe(200);

    // A payout: claimed, unclaimed by its owner, and claimed by proposing it.
    const payout = await payoutInReview();
    const payoutItem = `/queues/payouts/${payout.id}`;
    expect((await form('approver', `${payoutItem}/claim`)).status).toBe(303);
    expect(rowOf((await page('operator', '/queues/payouts')).text, payout.reference)).toContain(`<td>${approver.email}</td>`);
    expect((await form('operator', `${payoutItem}/propose`, { outcome: 'failed', reason: 'Recipient says nothing arrived' })).status).toBe(409);
    expect((await form('approver', `${payoutItem}/unclaim`)).status).toBe(303);
    const payoutProposal = await form('operator', `${payoutItem}/propose`, { outcome: 'failed', reason: 'Recipient says nothing arrived' });
    expect(payoutProposal.status).toBe(303);
    expect((await stack.sql<{ action: string; actor_staff_id: string }>(`SELECT action, actor_staff_id FROM staff_audit_events WHERE subject_type = 'payout' AND subject_id = $1 ORDER BY id`, [payout.id])).map((record) => [record.action, record.actor_staff_id])).toEqual([
      ['payout.claimed', approver.id],
      ['payout.unclaimed', approver.id],
      ['payout.claimed', operator.id],
      ['proposal.created', operator.id],
    ]);
    expect((await page('support', payoutItem)).text).toContain(`id="owner">${operator.email}, since`);
    expect((await form('operator', `/proposals/${proposalIdOf(payoutProposal.headers.location)}/withdraw`)).status).toBe(200);
  });

  it("funds a vendor's payout account only with a second approver, crediting the ledger once", async () => {
    const balance = async () => (await stack.sql<{ available_cents: string }>(`SELECT available_cents::text FROM payout_accounts WHERE vendor_id = $1`, [payoutVendor.vendor.id]))[0].available_cents;
    const before = BigInt(await balance());
    expect((await page('support', `/vendors/${payoutVendor.vendor.id}`)).text).toContain('Review queue payouts');
    expect((await form('support', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '500.00', reason: 'support cannot propose money' })).status).toBe(403);
    expect((await form('operator', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '-5', reason: 'Deposit FNB ref 778812' })).status).toBe(400);
    const proposed = await form('operator', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '500.00', reason: 'Deposit FNB ref 778812' });
    expect(proposed.status).toBe(303);
    const proposalId = proposalIdOf(proposed.headers.location);
    expect(BigInt(await balance())).toBe(before);
    expect((await form('approver', `/proposals/${proposalId}/approve`)).status).toBe(200);
    expect(BigInt(await balance()) - before).toBe(50_000n);
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`)).status).toBe(409);
    expect(BigInt(await balance()) - before).toBe(50_000n);
    const [record] = await stack.sql(`SELECT actor_staff_id, approved_by_staff_id, reason FROM staff_audit_events WHERE action = 'payout.funded' AND proposal_id = $1`, [proposalId]);
    expect(record).toEqual({ actor_staff_id: operator.id, approved_by_staff_id: approver.id, reason: 'Deposit FNB ref 778812' });
  });

  it('applies a funding at or below STAFF_FOUR_EYES_ABOVE_CENTS at once, with its audit record, and proposes one above it', async () => {
    const balance = async () => BigInt((await stack.sql<{ available_cents: string }>(`SELECT available_cents::text FROM payout_accounts WHERE vendor_id = $1`, [payoutVendor.vendor.id]))[0].available_cents);
    const before = await balance();
    expect((await form('support', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '100.00', reason: 'support cannot move money' })).status).toBe(403);
    expect((await form('operator', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '100.00', reason: 'short' })).status).toBe(400);
    expect(await balance()).toBe(before);
    const direct = await form('operator', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '100.00', reason: 'Deposit FNB ref 990001' });
    expect(direct.status).toBe(303);
    expect(direct.headers.location).toBe(`/vendors/${payoutVendor.vendor.id}`);
    expect((await balance()) - before).toBe(10_000n);
    const [record] = await stack.sql(
      `SELECT actor_staff_id, approved_by_staff_id, proposal_id, reason, details->>'amount_cents' AS amount_cents FROM staff_audit_events WHERE action = 'payout.funded' AND vendor_id = $1 AND reason = 'Deposit FNB ref 990001'`,
      [payoutVendor.vendor.id],
    );
    expect(record).toEqual({ actor_staff_id: operator.id, approved_by_staff_id: null, proposal_id: null, reason: 'Deposit FNB ref 990001', amount_cents: '10000' });
    // One cent above the threshold: a proposal, which its proposer cannot approve.
    const proposed = await form('approver', `/vendors/${payoutVendor.vendor.id}/fund`, { amount: '100.01', reason: 'Deposit FNB ref 990002' });
    expect(proposed.status).toBe(303);
    const proposalId = proposalIdOf(proposed.headers.location);
    expect((await balance()) - before).toBe(10_000n);
    expect((await form('approver', `/proposals/${proposalId}/approve`)).status).toBe(409);
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`)).status).toBe(200);
    expect((await balance()) - before).toBe(20_001n);
  });

  it('the invariant checker flags a resolution without an approval and one the provider later contradicts', async () => {
    const other = await stack.payoutVendor({ name: 'Review queue forged', fundCents: 100_000n });
    const saved = payoutVendor;
    payoutVendor = other;
    try {
      // A resolution the provider contradicts afterwards: resolved paid by staff, then the provider rejects it.
      const contradicted = await payoutInReview();
      const proposed = await form('operator', `/queues/payouts/${contradicted.id}/propose`, { outcome: 'paid', reason: 'Operator believed it was collected' });
      expect((await form('approver', `/proposals/${proposalIdOf(proposed.headers.location)}/approve`)).status).toBe(200);
      expect((await settlePayout(contradicted.merchantReference, 'REJECTED')).status).toBe(200);
      // What the worker's next status poll does: a verified lookup, applied by the payout's outcome code.
      const payment = await stack.worker!.get(PayoutRails).lookup('bank_a_instant_money', contradicted.merchantReference);
      await stack.worker!.get(PayoutOutcomesService).applyProviderPayment(contradicted.id, payment, false);
      expect(await payoutStatus(contradicted.id)).toEqual({ status: 'paid', status_reason: 'resolved_by_staff' });
      // A forged resolution: a row naming a proposal nobody approved.
      const forged = await payoutInReview();
      const pending = await backOffice.app
        .get(FourEyes)
        .propose('payout.resolve', forged.id, { outcome: 'failed' }, 'Forged resolution for the checker', { staffUserId: operator.id, label: operator.email, role: 'operator' });
      await stack.sql(`INSERT INTO staff_manual_resolutions (domain, item_id, vendor_id, outcome, proposal_id) VALUES ('payout', $1, $2, 'failed', $3)`, [forged.id, other.vendor.id, pending.id]);

      const violations = (await stack.invariants([other.vendor.id])).violations.filter((violation) => violation.invariant.startsWith('manualResolution'));
      expect(violations.map((violation) => [violation.invariant, violation.subject]).sort()).toEqual(
        [
          ['manualResolutionAgreesWithProvider', contradicted.id],
          ['manualResolutionAgreesWithProvider', forged.id],
          ['manualResolutionApproved', forged.id],
        ].sort(),
      );
    } finally {
      payoutVendor = saved;
    }
  });
});
