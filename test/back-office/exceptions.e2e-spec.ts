import { existsSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { VendorService } from '#auth';
import { checkInvariants } from '#invariants';
import { PayoutLedgerService } from '#payout';
import { ReconciliationExceptionsService, type RaiseReconciliationException } from '#reconciliation';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, nextCode, staffSignIn, type StaffPerson, type StaffSignedIn } from '../support/back-office.js';
import { OPS_CLI, runOps } from '../support/ops-cli.js';

const CLI = OPS_CLI;

type Who = 'support' | 'operator' | 'approver' | 'secondApprover' | 'thirdApprover' | 'fourthApprover';

/**
 * Issue 26, "Exceptions are a back-office queue" and "no money moves from one person": a
 * reconciliation exception is claimed by one owner, noted, and resolved with a named resolution
 * through the back-office's HTTP pages; a resolution that moves money is a four-eyes proposal
 * the proposer cannot approve, and approvals racing each other write its ledger entry exactly
 * once (checked in ledger_entries and the account's balances). `ops reconcile:resolve` goes
 * through the same service and can only propose a money move.
 */
describe('back-office exceptions queue', () => {
  let backOffice: RunningApp;
  let db: DataSource;
  let env: NodeJS.ProcessEnv;
  const people = {} as Record<Who, StaffPerson>;
  const session = {} as Record<Who, StaffSignedIn>;
  let serial = 0;

  const form = (who: Who, path: string, fields: Record<string, string> = {}) =>
    backOffice.http().post(path).set('Cookie', session[who].cookie).type('form').send({ _csrf: session[who].csrf, ...fields });
  const page = (who: Who, path: string) => backOffice.http().get(path).set('Cookie', session[who].cookie);

  async function fundedVendor(name: string, cents: bigint): Promise<string> {
    const vendor = await backOffice.app.get(VendorService).create(`${name} ${Date.now()}`);
    await backOffice.app.get(PayoutLedgerService).fund(vendor.id, cents, 'test funding');
    return vendor.id;
  }

  /** An exception as the settlement matcher raises one: a report line that contradicts a payout's status. */
  async function raise(vendorId: string | null, extra: Partial<RaiseReconciliationException> = {}): Promise<string> {
    serial += 1;
    const { id } = await backOffice.app.get(ReconciliationExceptionsService).raiseAndName({
      domain: 'payout',
      kind: 'status_conflict',
      dedupeKey: `test:exceptions:${process.pid}:${Date.now()}:${serial}`,
      vendorId,
      provider: 'bank_a_instant_money',
      reportDate: '2026-02-11', // a date no settlement suite reports on (they count a date's exceptions)
      details: { provider_status: 'PAID', provider_amount: '150.00', merchant_reference: `M-${serial}`, our_status: 'failed' },
      ...extra,
    });
    return id;
  }

  const ledger = async (vendorId: string) =>
    db.query(
      `SELECT kind, amount_cents::text AS amount_cents, available_delta_cents::text AS delta, reason, exception_id, proposal_id, approved_by
         FROM ledger_entries WHERE vendor_id = $1 AND kind <> 'fund' ORDER BY id`,
      [vendorId],
    );
  const balances = async (vendorId: string) =>
    (await db.query(
      `SELECT a.available_cents::text AS available, a.reserved_cents::text AS reserved,
              (SELECT SUM(available_delta_cents)::text FROM ledger_entries e WHERE e.vendor_id = a.vendor_id) AS entries_available
         FROM payout_accounts a WHERE a.vendor_id = $1`,
      [vendorId],
    ))[0];
  const exceptionRow = async (id: string) =>
    (await db.query(
      `SELECT status, owner_staff_id, resolution_kind, resolved_by, resolved_by_staff_id, resolution_proposal_id, resolution FROM reconciliation_exceptions WHERE id = $1`,
      [id],
    ))[0];
  const trail = async (id: string) =>
    db.query(`SELECT actor, action, approved_by, reason, details FROM staff_audit_events WHERE subject_type = 'reconciliation_exception' AND subject_id = $1 ORDER BY id`, [id]);

  const ops = (...args: string[]) => runOps(env, ...args);

  beforeAll(async () => {
    backOffice = await startBackOffice({ config: { STAFF_FOUR_EYES_ABOVE_CENTS: '100000' } });
    db = backOffice.app.get(DataSource);
    env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, OPS_ACTOR: 'sipho.ops', STAFF_FOUR_EYES_ABOVE_CENTS: '100000' };
    const roles: Record<Who, 'support' | 'operator' | 'approver'> = { support: 'support', operator: 'operator', approver: 'approver', secondApprover: 'approver', thirdApprover: 'approver', fourthApprover: 'approver' };
    for (const [who, role] of Object.entries(roles) as [Who, 'support' | 'operator' | 'approver'][]) {
      people[who] = await createStaffUser(backOffice.app, role);
      session[who] = await staffSignIn(backOffice.http, people[who]);
    }
  }, 120_000);

  afterAll(async () => {
    await backOffice?.close();
  });

  it('lists open exceptions oldest first with vendor, kind and what the provider said; filters by kind and status', async () => {
    const vendorId = await fundedVendor('Queue listing vendor', 100_000n);
    const first = await raise(vendorId);
    const second = await raise(vendorId, { kind: 'amount_mismatch', details: { provider_amount: '151.00', our_amount: '150.00', provider_status: 'PAID' } });

    const all = await page('support', '/exceptions');
    expect(all.status).toBe(200);
    expect(all.text).toContain('Queue listing vendor');
    expect(all.text.indexOf(`/exceptions/${first}`)).toBeGreaterThan(-1);
    expect(all.text.indexOf(`/exceptions/${first}`)).toBeLessThan(all.text.indexOf(`/exceptions/${second}`));
    expect(all.text).toContain('PAID, amount 150.00');

    const mismatches = await page('support', '/exceptions?kind=amount_mismatch&status=open');
    expect(mismatches.text).toContain(`/exceptions/${second}`);
    expect(mismatches.text).not.toContain(`/exceptions/${first}`);
    expect((await page('support', '/exceptions?status=resolved')).text).not.toContain(`/exceptions/${first}`);
    expect((await page('support', '/')).text).toMatch(/Open reconciliation exceptions<\/a><\/td><td class="num">[1-9]/);
  });

  it('one owner claims it, others see who and cannot take it or resolve it; notes are kept with author and time; support only reads', async () => {
    const vendorId = await fundedVendor('Claiming vendor', 100_000n);
    const id = await raise(vendorId);

    expect((await form('support', `/exceptions/${id}/claim`)).status).toBe(403);
    expect((await form('support', `/exceptions/${id}/notes`, { note: 'support cannot write' })).status).toBe(403);

    expect((await form('operator', `/exceptions/${id}/claim`)).status).toBe(303);
    expect((await exceptionRow(id)).owner_staff_id).toBe(people.operator.id);
    const taken = await form('approver', `/exceptions/${id}/claim`);
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`${people.operator.email} owns this exception`);
    const shown = await page('approver', `/exceptions/${id}`);
    expect(shown.text).toContain(people.operator.email);
    // Only the owner resolves.
    const notOwner = await form('approver', `/exceptions/${id}/resolve`, { resolution: 'no_money_moves', reason: 'Provider confirmed their file was wrong' });
    expect(notOwner.status).toBe(409);
    expect((await exceptionRow(id)).status).toBe('open');

    expect((await form('operator', `/exceptions/${id}/notes`, { note: '   ' })).status).toBe(400);
    expect((await form('operator', `/exceptions/${id}/notes`, { note: 'Called the provider: ticket 7781 opened' })).status).toBe(303);
    expect((await form('approver', `/exceptions/${id}/notes`, { note: 'Vendor emailed, expects a call back' })).status).toBe(303);
    const notes = await db.query(`SELECT author, body FROM reconciliation_exception_notes WHERE exception_id = $1 ORDER BY id`, [id]);
    expect(notes).toEqual([
      { author: people.operator.email, body: 'Called the provider: ticket 7781 opened' },
      { author: people.approver.email, body: 'Vendor emailed, expects a call back' },
    ]);
    await expect(db.query(`UPDATE reconciliation_exception_notes SET body = 'changed' WHERE exception_id = $1`, [id])).rejects.toThrow(/append-only/);

    // Reassigned to the approver, who now resolves it; nothing about money moved.
    expect((await form('operator', `/exceptions/${id}/reassign`, { owner: people.approver.id })).status).toBe(303);
    expect((await exceptionRow(id)).owner_staff_id).toBe(people.approver.id);
    // record_corrected is refused: the exception names no record of ours.
    const corrected = await form('approver', `/exceptions/${id}/resolve`, { resolution: 'record_corrected', reason: 'The provider fixed their report' });
    expect(corrected.status).toBe(409);
    expect(corrected.text).toContain('names no record of ours');
    expect((await form('approver', `/exceptions/${id}/resolve`, { resolution: 'no_money_moves', reason: 'Provider confirmed their file was wrong (ticket 7781)' })).status).toBe(303);
    expect(await exceptionRow(id)).toMatchObject({ status: 'resolved', resolution_kind: 'no_money_moves', resolved_by: people.approver.email, resolved_by_staff_id: people.approver.id, resolution_proposal_id: null });
    expect(await ledger(vendorId)).toEqual([]);

    expect((await trail(id)).map((record: { actor: string; action: string }) => [record.actor, record.action])).toEqual([
      [people.operator.email, 'exception.claimed'],
      [people.operator.email, 'exception.noted'],
      [people.approver.email, 'exception.noted'],
      [people.operator.email, 'exception.reassigned'],
      [people.approver.email, 'exception.resolved'],
    ]);
  });

  it('a money resolution is a proposal the proposer cannot approve; racing approvals write the ledger entry once', async () => {
    const vendorId = await fundedVendor('Recovery vendor', 100_000n);
    const id = await raise(vendorId);
    // The proposer is an approver too: the rule is "never the proposer", not a matter of role.
    expect((await form('approver', `/exceptions/${id}/claim`)).status).toBe(303);

    const bad = await form('approver', `/exceptions/${id}/resolve`, { resolution: 'ledger_adjustment', amount: '150.00', reason: 'Recover the payout the provider paid' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose debit');
    const proposed = await form('approver', `/exceptions/${id}/resolve`, { resolution: 'recovered_from_vendor', amount: '150.00', reason: 'Provider paid the released payout: recover it from the vendor' });
    expect(proposed.status).toBe(303);
    const proposalId = /\/proposals\/([0-9a-f-]{36})/.exec(proposed.headers.location)![1];
    // Nothing moved yet, and the proposer cannot approve their own.
    expect(await ledger(vendorId)).toEqual([]);
    const own = await form('approver', `/proposals/${proposalId}/approve`);
    expect(own.status).toBe(409);
    expect(own.text).toContain('another person must approve');
    expect((await form('operator', `/proposals/${proposalId}/approve`)).status).toBe(403);
    expect((await exceptionRow(id)).status).toBe('open');
    // A second resolution cannot be started while this one waits.
    expect((await form('approver', `/exceptions/${id}/resolve`, { resolution: 'no_money_moves', reason: 'Changed my mind about it' })).status).toBe(409);

    // The approver sees the exception, the balance now and the entry proposed.
    const review = await page('secondApprover', `/proposals/${proposalId}`);
    expect(review.text).toContain('available ZAR 1,000.00');
    expect(review.text).toContain('adjust_debit</code> of ZAR 150.00: available becomes ZAR 850.00');

    // Approving moves money: the first step changes nothing and says what will happen; a reason is required.
    const step = await form('secondApprover', `/proposals/${proposalId}/approve`);
    expect(step.status).toBe(200);
    expect(step.text).toContain('name="confirmed" value="yes"');
    expect(step.text).toMatch(/debit <strong>ZAR 150.00<\/strong> from the payout account of <strong>[^<]+<\/strong>/);
    expect(step.text).toContain('available becomes ZAR 850.00');
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`, { confirmed: 'yes', reason: 'short' })).status).toBe(400);
    expect(await ledger(vendorId)).toHaveLength(0);
    expect((await exceptionRow(id)).status).toBe('open');

    // Three approvers at once: one approval takes effect, the others are refused.
    const confirmed = { confirmed: 'yes', reason: 'Checked the provider file and the vendor agreed' };
    const statuses = (await Promise.all((['secondApprover', 'thirdApprover', 'fourthApprover'] as const).map((who) => form(who, `/proposals/${proposalId}/approve`, confirmed)))).map((response) => response.status);
    expect(statuses.sort()).toEqual([200, 409, 409]);

    const entries = await ledger(vendorId);
    expect(entries).toHaveLength(1);
    const approvedBy = [people.secondApprover, people.thirdApprover, people.fourthApprover].find((person) => person.email === entries[0].approved_by)!;
    expect(approvedBy).toBeDefined();
    expect(entries[0]).toEqual({
      kind: 'adjust_debit',
      amount_cents: '15000',
      delta: '-15000',
      reason: 'Provider paid the released payout: recover it from the vendor',
      exception_id: id,
      proposal_id: proposalId,
      approved_by: approvedBy.email,
    });
    expect(await balances(vendorId)).toEqual({ available: '85000', reserved: '0', entries_available: '85000' });
    expect(await exceptionRow(id)).toMatchObject({ status: 'resolved', resolution_kind: 'recovered_from_vendor', resolved_by_staff_id: approvedBy.id, resolution_proposal_id: proposalId });
    // Approving again changes nothing.
    expect((await form('secondApprover', `/proposals/${proposalId}/approve`, confirmed)).status).toBe(409);
    expect(await ledger(vendorId)).toHaveLength(1);

    // The vendor's page and the exception's page show the entry.
    const vendorPage = await page('support', `/vendors/${vendorId}`);
    expect(vendorPage.text).toContain('adjust_debit');
    expect(vendorPage.text).toContain('ZAR -150.00');
    expect((await page('support', `/exceptions/${id}`)).text).toContain('Provider paid the released payout: recover it from the vendor');

    expect((await trail(id)).map((record: { action: string; approved_by: string | null }) => [record.action, record.approved_by])).toEqual([
      ['exception.claimed', null],
      ['proposal.created', null],
      ['exception.resolved', approvedBy.email],
    ]);

    // The books are right, and the checker holds every adjustment to an approval: one written by
    // one person straight into the ledger (in a transaction rolled back) is reported.
    const clean = await checkInvariants((sql, parameters) => db.query(sql, parameters), { vendorIds: [vendorId] });
    expect(clean.violations).toEqual([]);
    expect(clean.examined.correctionApproved).toBe(1);
    const other = await raise(vendorId);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`UPDATE payout_accounts SET available_cents = available_cents + 5000 WHERE vendor_id = $1`, [vendorId]);
      await runner.query(
        `INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents, reason, exception_id) VALUES ($1, 'adjust_credit', 5000, 5000, 0, 'one person', $2)`,
        [vendorId, other],
      );
      const forged = await checkInvariants((sql, parameters) => runner.query(sql, parameters), { vendorIds: [vendorId] });
      expect(forged.violations.map((violation) => violation.invariant)).toEqual(['correctionApproved']);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('ops reconcile:resolve resolves as a proven staff account and can only propose a money move', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    const vendorId = await fundedVendor('CLI exceptions vendor', 100_000n);
    const money = await raise(vendorId);
    const plain = await raise(vendorId);

    const bare = await ops('reconcile:resolve', '--id', money, '--resolution', 'repaid_to_vendor', '--amount', '20.00', '--note', 'Vendor was charged twice by the provider');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('names the staff member who resolves it');

    const proposed = await ops(
      'reconcile:resolve', '--id', money, '--resolution', 'repaid_to_vendor', '--amount', '20.00', '--note', 'Vendor was charged twice by the provider',
      '--proposer', people.operator.email, '--code', await nextCode(people.operator),
    );
    expect(proposed.code).toBe(0);
    expect(proposed.json).toMatchObject({ applied: false, proposal: { kind: 'exception.resolve', status: 'pending', proposed_by: people.operator.email, params: expect.objectContaining({ entry_kind: 'adjust_credit', amount_cents: '2000' }) } });
    // A proposal, not a ledger entry: the account is as funded and the exception still open.
    expect(await ledger(vendorId)).toEqual([]);
    expect(await balances(vendorId)).toEqual({ available: '100000', reserved: '0', entries_available: '100000' });
    expect((await exceptionRow(money)).status).toBe('open');
    expect(await db.query(`SELECT kind, status, proposed_by FROM staff_proposals WHERE subject_type = 'reconciliation_exception' AND subject_id = $1`, [money])).toEqual([
      { kind: 'exception.resolve', status: 'pending', proposed_by: people.operator.id },
    ]);

    const closed = await ops('reconcile:resolve', '--id', plain, '--resolution', 'no_money_moves', '--note', 'Provider ticket 4411: their file was wrong', '--proposer', people.operator.email, '--code', await nextCode(people.operator));
    expect(closed.code).toBe(0);
    expect(closed.json).toMatchObject({ id: plain, status: 'resolved', resolution_kind: 'no_money_moves', resolved_by: people.operator.email });
    const again = await ops('reconcile:resolve', '--id', plain, '--resolution', 'no_money_moves', '--note', 'Provider ticket 4411 again', '--proposer', people.operator.email, '--code', await nextCode(people.operator));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already resolved');
    expect((await trail(plain)).map((record: { actor: string; action: string; details: Record<string, unknown> }) => [record.actor, record.action, record.details.via ?? null])).toEqual([
      [people.operator.email, 'exception.claimed', null],
      [people.operator.email, 'exception.resolved', 'ops'],
    ]);
    // Three authenticator codes of one person: each waits for the next 30-second step.
  }, 180_000);
});
