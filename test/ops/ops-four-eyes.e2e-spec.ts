import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, nextCode, staffSignIn, type StaffPerson, type StaffSignedIn } from '../support/back-office.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';
/** R1 000.00: the CLI and the back-office judge against the same threshold. */
const THRESHOLD = '100000';

/**
 * Issue 26, "no money moves from one person": the compiled `ops payout:fund` and `ops limits:set`
 * above STAFF_FOUR_EYES_ABOVE_CENTS write the back-office's own four-eyes proposal (proposed by a
 * staff account the CLI proves with its authenticator code), never the change itself; the change
 * happens exactly once when another approver approves it through the back-office's HTTP pages,
 * and never by the proposer. At or below the threshold the CLI applies at once, as before.
 */
describe('ops money commands under four eyes', () => {
  let backOffice: RunningApp;
  let db: DataSource;
  let env: NodeJS.ProcessEnv;
  let proposer: StaffPerson;
  let approver: StaffPerson;
  const session: Record<'proposer' | 'approver', StaffSignedIn> = {} as never;

  async function ops(...args: string[]): Promise<{ json: Record<string, unknown>; code: number; stderr: string }> {
    try {
      const { stdout, stderr } = await run('node', [CLI, ...args], { env, timeout: 90_000 });
      return { json: JSON.parse(stdout), code: 0, stderr };
    } catch (error) {
      const failure = error as { code: number; stderr: string };
      return { json: {}, code: failure.code, stderr: failure.stderr };
    }
  }

  // An approval of a money proposal is the confirmed second step, with the approver's reason.
  const confirmedApproval = (path: string) => (path.endsWith('/approve') ? { confirmed: 'yes', reason: 'Checked the deposit on the bank statement' } : {});
  const form = (who: keyof typeof session, path: string, fields: Record<string, string> = {}) =>
    backOffice.http().post(path).set('Cookie', session[who].cookie).type('form').send({ _csrf: session[who].csrf, ...confirmedApproval(path), ...fields });

  const fundEntries = async (vendorId: string) =>
    (await db.query(`SELECT amount_cents::text AS amount_cents FROM ledger_entries WHERE vendor_id = $1 AND kind = 'fund' ORDER BY id`, [vendorId])).map((row: { amount_cents: string }) => row.amount_cents);

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, OPS_ACTOR: 'jane.ops', STAFF_FOUR_EYES_ABOVE_CENTS: THRESHOLD };
    backOffice = await startBackOffice({ config: { STAFF_FOUR_EYES_ABOVE_CENTS: THRESHOLD } });
    db = backOffice.app.get(DataSource);
    proposer = await createStaffUser(backOffice.app, 'approver');
    approver = await createStaffUser(backOffice.app, 'approver');
    session.approver = await staffSignIn(backOffice.http, approver);
  }, 120_000);

  afterAll(async () => {
    await backOffice?.close();
  });

  it('payout:fund above the threshold writes a proposal, not a ledger entry; another approver credits it once in the back-office', async () => {
    const vendor = await ops('vendor:create', '--name', 'CLI four-eyes funding');
    const vendorId = vendor.json.id as string;

    // Without a proven staff proposer: refused, nothing written.
    const bare = await ops('payout:fund', '--vendor', vendorId, '--amount', '5000.00', '--note', 'EFT ref 5550001');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('four-eyes threshold (STAFF_FOUR_EYES_ABOVE_CENTS=100000)');
    // A colleague's email without their code proves nothing.
    const forged = await ops('payout:fund', '--vendor', vendorId, '--amount', '5000.00', '--note', 'EFT ref 5550001', '--proposer', approver.email, '--code', '000000');
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain('do not match an active staff account');
    expect(await db.query(`SELECT actor, details FROM staff_audit_events WHERE action = 'ops.proposer_refused' AND subject_id = $1`, [vendorId])).toEqual([
      { actor: 'ops:jane.ops', details: { command: 'payout:fund', proposer_email: approver.email } },
    ]);
    expect(await fundEntries(vendorId)).toEqual([]);
    expect(await db.query(`SELECT id FROM staff_proposals WHERE subject_id = $1`, [vendorId])).toEqual([]);

    const proposed = await ops('payout:fund', '--vendor', vendorId, '--amount', '5000.00', '--note', 'EFT ref 5550001', '--proposer', proposer.email, '--code', await nextCode(proposer));
    expect(proposed.code).toBe(0);
    const proposal = proposed.json.proposal as Record<string, unknown>;
    expect(proposed.json).toMatchObject({ applied: false, next: expect.stringContaining('another staff member') });
    expect(proposal).toMatchObject({
      id: expect.any(String),
      kind: 'payout.fund',
      status: 'pending',
      will_do: 'Fund CLI four-eyes funding\'s payout account with ZAR 5,000.00',
      proposed_by: proposer.email,
      approve_at: `http://127.0.0.1:3300/proposals/${String(proposal.id)}`,
    });
    // A proposal, not a ledger entry.
    expect(await fundEntries(vendorId)).toEqual([]);

    // The proposer cannot approve their own, even signed in to the back-office.
    session.proposer = await staffSignIn(backOffice.http, proposer);
    expect((await form('proposer', `/proposals/${String(proposal.id)}/approve`)).status).toBe(409);
    expect(await fundEntries(vendorId)).toEqual([]);

    // Another approver: credited exactly once; a second approval changes nothing.
    expect((await form('approver', `/proposals/${String(proposal.id)}/approve`)).status).toBe(200);
    expect((await form('approver', `/proposals/${String(proposal.id)}/approve`)).status).toBe(409);
    expect(await fundEntries(vendorId)).toEqual(['500000']);

    // At or below the threshold the CLI credits at once, as before (no proposer needed).
    const small = await ops('payout:fund', '--vendor', vendorId, '--amount', '1000.00', '--note', 'EFT ref 5550002');
    expect(small.code).toBe(0);
    expect(small.json).toMatchObject({ availableCents: '600000' });
    expect(await fundEntries(vendorId)).toEqual(['500000', '100000']);

    const trail = await db.query(
      `SELECT actor, actor_staff_id, action, approved_by_staff_id, reason, details->>'via' AS via, details->>'ops_actor' AS ops_actor, details->>'amount_cents' AS amount_cents
         FROM staff_audit_events WHERE subject_type = 'vendor' AND subject_id = $1 ORDER BY id`,
      [vendorId],
    );
    expect(trail).toEqual([
      { actor: 'ops:jane.ops', actor_staff_id: null, action: 'vendor.created', approved_by_staff_id: null, reason: null, via: null, ops_actor: null, amount_cents: null },
      // The colleague's email with a wrong code: refused, and on the trail.
      { actor: 'ops:jane.ops', actor_staff_id: null, action: 'ops.proposer_refused', approved_by_staff_id: null, reason: null, via: null, ops_actor: null, amount_cents: null },
      { actor: proposer.email, actor_staff_id: proposer.id, action: 'proposal.created', approved_by_staff_id: null, reason: 'EFT ref 5550001', via: 'ops', ops_actor: 'ops:jane.ops', amount_cents: '500000' },
      { actor: proposer.email, actor_staff_id: proposer.id, action: 'payout.funded', approved_by_staff_id: approver.id, reason: 'EFT ref 5550001', via: null, ops_actor: null, amount_cents: '500000' },
      { actor: 'ops:jane.ops', actor_staff_id: null, action: 'payout.funded', approved_by_staff_id: null, reason: 'EFT ref 5550002', via: null, ops_actor: null, amount_cents: '100000' },
    ]);
  });

  it('limits:set raising above the threshold is a proposal the proposer cannot approve; lowering applies at once', async () => {
    const vendor = await ops('vendor:create', '--name', 'CLI four-eyes limits');
    const vendorId = vendor.json.id as string;
    const limitsOf = async () =>
      (await db.query(`SELECT daily_cap_cents::text AS daily, transaction_max_cents::text AS max FROM purchase_spend_controls WHERE vendor_id = $1`, [vendorId]))[0] ?? { daily: null, max: null };
    const unset = { daily: null, max: null };
    const raise = ['limits:set', '--vendor', vendorId, '--daily-cap-minor', '5000000', '--transaction-max-minor', '50000', '--velocity-count', '10', '--velocity-window-seconds', '60'];

    const bare = await ops(...raise, '--reason', 'Vendor grew: new contract');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('needs a second person');
    expect(await limitsOf()).toEqual(unset);

    const proposed = await ops(...raise, '--reason', 'Vendor grew: new contract', '--proposer', proposer.email, '--code', await nextCode(proposer));
    expect(proposed.code).toBe(0);
    const proposal = proposed.json.proposal as Record<string, unknown>;
    expect(proposal).toMatchObject({ kind: 'limits.set', status: 'pending', proposed_by: proposer.email, params: expect.objectContaining({ daily_cap_minor: '5000000', transaction_max_minor: '50000' }) });
    expect(await limitsOf()).toEqual(unset);

    session.proposer ??= await staffSignIn(backOffice.http, proposer);
    expect((await form('proposer', `/proposals/${String(proposal.id)}/approve`)).status).toBe(409);
    expect(await limitsOf()).toEqual(unset);
    expect((await form('approver', `/proposals/${String(proposal.id)}/approve`)).status).toBe(200);
    expect(await limitsOf()).toEqual({ daily: '5000000', max: '50000' });

    // Lowering needs one person.
    const lowered = await ops('limits:set', '--vendor', vendorId, '--daily-cap-minor', '4000000', '--transaction-max-minor', '40000', '--velocity-count', '10', '--velocity-window-seconds', '60');
    expect(lowered.code).toBe(0);
    expect(lowered.json).toMatchObject({ daily_cap_minor: 4000000, transaction_max_minor: 40000 });

    const actions = await db.query(`SELECT actor, action, approved_by_staff_id FROM staff_audit_events WHERE subject_id = $1 AND action <> 'vendor.created' ORDER BY id`, [vendorId]);
    expect(actions).toEqual([
      { actor: proposer.email, action: 'proposal.created', approved_by_staff_id: null },
      { actor: proposer.email, action: 'limits.set', approved_by_staff_id: approver.id },
      { actor: 'ops:jane.ops', action: 'limits.set', approved_by_staff_id: null },
    ]);
  });

  it('demo:seed refuses APP_ENV=production', async () => {
    const { stderr } = await run('node', [CLI, 'demo:seed'], { env: { ...env, APP_ENV: 'production' }, timeout: 90_000 }).catch((error: { stderr: string }) => ({ stderr: error.stderr }));
    expect(stderr).toContain('demo:seed is for development and tests only');
  });
});
