import { DataSource } from 'typeorm';
import { STAFF_PERMISSIONS, STAFF_ROLE_PERMISSIONS } from '#staff';
import { startBackOffice, startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createStaffUser, nextCode, STAFF_SESSION_COOKIE, staffSignIn, staffSignInRequest, type StaffPerson, type StaffSignedIn } from '../support/back-office.js';
import { cookieValue, createDashboardUser, SESSION_COOKIE, signIn } from '../support/dashboard.js';
import { bearer, createTestVendor, type TestVendor } from '../support/vendors.js';

/**
 * The back-office's boundaries, each refusal checked in the database too: only a staff session
 * with both factors gets in (never a vendor API token or a vendor dashboard session), the role
 * matrix holds on the server, CSRF, four eyes (the proposer cannot approve: refused by the
 * service, the guarded update and the table), and the audit trail is append-only.
 */
describe('staff back-office access and four eyes', () => {
  let backOffice: RunningApp;
  let dashboard: RunningApp;
  let db: DataSource;
  let vendor: TestVendor;
  const people: Partial<Record<'support' | 'operator' | 'approver' | 'admin' | 'admin2', StaffPerson>> = {};
  const sessions: Partial<Record<keyof typeof people, StaffSignedIn>> = {};

  beforeAll(async () => {
    backOffice = await startBackOffice();
    dashboard = await startVendorDashboard();
    db = backOffice.app.get(DataSource);
    vendor = await createTestVendor(dashboard.app, 'Back-office access vendor');
    for (const role of ['support', 'operator', 'approver', 'admin'] as const) people[role] = await createStaffUser(backOffice.app, role);
    people.admin2 = await createStaffUser(backOffice.app, 'admin');
    for (const key of Object.keys(people) as (keyof typeof people)[]) sessions[key] = await staffSignIn(backOffice.http, people[key]!);
  }, 90_000);

  afterAll(async () => {
    await dashboard?.close();
    await backOffice?.close();
  });

  const auditCount = async () => Number((await db.query(`SELECT count(*)::int AS n FROM staff_audit_events`))[0].n);
  const proposalCount = async () => Number((await db.query(`SELECT count(*)::int AS n FROM staff_proposals`))[0].n);

  it('gives a vendor API token nothing: pages redirect to sign-in, actions answer 401 and write nothing', async () => {
    const before = [await auditCount(), await proposalCount()];
    for (const path of ['/', '/proposals', '/audit', '/staff']) {
      const response = await backOffice.http().get(path).set(bearer(vendor.token));
      expect({ path, status: response.status, location: response.headers.location }).toEqual({ path, status: 303, location: `/sign-in?next=${encodeURIComponent(path)}` });
    }
    const post = await backOffice.http().post('/staff/propose').set(bearer(vendor.token)).type('form').send({ email: 'x@staff.example', role: 'admin', reason: 'token should not work here' });
    expect(post.status).toBe(401);
    expect([await auditCount(), await proposalCount()]).toEqual(before);
  });

  it('gives a vendor dashboard session nothing, under its own cookie name or the staff one', async () => {
    const owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner');
    const signedIn = await signIn(dashboard.http, owner);
    const secret = signedIn.cookie.split('=')[1];
    for (const cookie of [signedIn.cookie, `${STAFF_SESSION_COOKIE}=${secret}`]) {
      const page = await backOffice.http().get('/audit').set('Cookie', cookie);
      expect(page.status).toBe(303);
      const post = await backOffice.http().post('/staff/propose').set('Cookie', cookie).set('X-CSRF-Token', signedIn.csrf).type('form').send({ email: 'y@staff.example', role: 'admin', reason: 'dashboard session should not work' });
      expect(post.status).toBe(401);
    }
    // And the other way round: a staff session means nothing to the vendor dashboard.
    const staffSecret = sessions.admin!.cookie.split('=')[1];
    expect((await dashboard.http().get('/purchases').set('Cookie', `${SESSION_COOKIE}=${staffSecret}`)).status).toBe(303);
  });

  it('needs the second factor at every sign-in, and a code works once', async () => {
    const person = await createStaffUser(backOffice.app, 'support');
    const withoutCode = await staffSignInRequest(backOffice.http, person.email, person.password, '');
    expect(withoutCode.status).toBe(401);
    expect(cookieValue(withoutCode.headers['set-cookie'], STAFF_SESSION_COOKIE)).toBeUndefined();
    const code = await nextCode(person);
    const wrongPassword = await staffSignInRequest(backOffice.http, person.email, 'not the password at all', code);
    expect(wrongPassword.status).toBe(401);
    expect((await staffSignInRequest(backOffice.http, person.email, person.password, code)).status).toBe(303);
    // The same code again (a replay) is refused like a wrong one.
    expect((await staffSignInRequest(backOffice.http, person.email, person.password, code)).status).toBe(401);
    const cookie = await backOffice.http().get('/sign-in');
    expect(cookie.text).toMatch(/id="totp"[^>]* required/);
  });

  it('enforces the role matrix on the server for every section', async () => {
    const sections: Array<[string, (typeof STAFF_PERMISSIONS)[number]]> = [
      ['/', 'queues:read'],
      ['/proposals', 'queues:read'],
      ['/audit', 'audit:read'],
      ['/audit/export.csv?action=staff.created', 'audit:read'],
      ['/search?q=nothing-matches-this', 'queues:read'],
      [`/vendors/${vendor.vendor.id}/purchases`, 'queues:read'],
      ['/staff', 'staff:manage'],
    ];
    for (const role of ['support', 'operator', 'approver', 'admin'] as const) {
      for (const [path, permission] of sections) {
        const response = await backOffice.http().get(path).set('Cookie', sessions[role]!.cookie);
        const expected = STAFF_ROLE_PERMISSIONS[role].includes(permission) ? 200 : 403;
        expect({ role, path, status: response.status }).toEqual({ role, path, status: expected });
      }
    }
    // Writes too: an operator cannot propose staff changes; nothing is written.
    const before = await proposalCount();
    const refused = await backOffice.http().post('/staff/propose').set('Cookie', sessions.operator!.cookie).type('form').send({ _csrf: sessions.operator!.csrf, email: 'z@staff.example', role: 'admin', reason: 'operators cannot manage staff' });
    expect(refused.status).toBe(403);
    expect(await proposalCount()).toBe(before);
  });

  it('refuses a state change without the session CSRF token, writing nothing', async () => {
    const before = [await auditCount(), await proposalCount()];
    const response = await backOffice.http().post('/staff/propose').set('Cookie', sessions.admin!.cookie).type('form').send({ email: 'w@staff.example', role: 'support', reason: 'missing csrf token here' });
    expect(response.status).toBe(403);
    const foreign = await backOffice.http().post('/staff/propose').set('Cookie', sessions.admin!.cookie).type('form').send({ _csrf: sessions.admin2!.csrf, email: 'w@staff.example', role: 'support', reason: 'foreign csrf token here' });
    expect(foreign.status).toBe(403);
    expect([await auditCount(), await proposalCount()]).toEqual(before);
  });

  it('four eyes: the proposer cannot approve, a money approver cannot decide staff changes, another admin can; every step is audited', async () => {
    const target = people.support!;
    const proposed = await backOffice
      .http()
      .post(`/staff/${target.id}/role`)
      .set('Cookie', sessions.admin!.cookie)
      .type('form')
      .send({ _csrf: sessions.admin!.csrf, role: 'operator', reason: 'Moves to the operations desk from Monday' });
    expect(proposed.status).toBe(303);
    const proposalId = proposed.headers.location.split('/').pop()!;

    // The proposer: no approve button, and the server refuses (409) without changing anything.
    const own = await backOffice.http().get(`/proposals/${proposalId}`).set('Cookie', sessions.admin!.cookie);
    expect(own.text).not.toContain('/approve"');
    const selfApproval = await backOffice.http().post(`/proposals/${proposalId}/approve`).set('Cookie', sessions.admin!.cookie).type('form').send({ _csrf: sessions.admin!.csrf });
    expect(selfApproval.status).toBe(409);
    // An approver of money decisions holds no staff:manage: 403.
    const wrongRole = await backOffice.http().post(`/proposals/${proposalId}/approve`).set('Cookie', sessions.approver!.cookie).type('form').send({ _csrf: sessions.approver!.csrf });
    expect(wrongRole.status).toBe(403);
    expect((await db.query(`SELECT status FROM staff_proposals WHERE id = $1`, [proposalId]))[0].status).toBe('pending');
    expect((await db.query(`SELECT role FROM staff_users WHERE id = $1`, [target.id]))[0].role).toBe('support');

    // The table itself refuses the proposer as decider, even for a direct UPDATE.
    await expect(db.query(`UPDATE staff_proposals SET status = 'approved', decided_by = proposed_by, decided_at = now() WHERE id = $1`, [proposalId])).rejects.toThrow(/staff_proposals_four_eyes/);

    const approved = await backOffice.http().post(`/proposals/${proposalId}/approve`).set('Cookie', sessions.admin2!.cookie).type('form').send({ _csrf: sessions.admin2!.csrf, note: 'confirmed with the ops lead' });
    expect(approved.status).toBe(200);
    expect((await db.query(`SELECT role FROM staff_users WHERE id = $1`, [target.id]))[0].role).toBe('operator');
    // Approving twice changes nothing more.
    expect((await backOffice.http().post(`/proposals/${proposalId}/approve`).set('Cookie', sessions.admin2!.cookie).type('form').send({ _csrf: sessions.admin2!.csrf })).status).toBe(409);

    const records = await db.query(
      `SELECT action, actor_staff_id, approved_by_staff_id, reason FROM staff_audit_events WHERE proposal_id = $1 ORDER BY id`,
      [proposalId],
    );
    expect(records).toEqual([
      { action: 'proposal.created', actor_staff_id: people.admin!.id, approved_by_staff_id: null, reason: 'Moves to the operations desk from Monday' },
      { action: 'staff.role_changed', actor_staff_id: people.admin!.id, approved_by_staff_id: people.admin2!.id, reason: 'Moves to the operations desk from Monday' },
    ]);
    // The item's page shows its audit records.
    const page = await backOffice.http().get(`/proposals/${proposalId}`).set('Cookie', sessions.support!.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('staff.role_changed');
    expect(page.text).toContain(people.admin2!.email);
  });

  it('a new staff account is a proposal too; the approver alone sees the one-time setup link', async () => {
    const email = `new-${Date.now()}@staff.example`;
    const proposed = await backOffice.http().post('/staff/propose').set('Cookie', sessions.admin2!.cookie).type('form').send({ _csrf: sessions.admin2!.csrf, email, role: 'approver', reason: 'New approver for the night shift' });
    expect(proposed.status).toBe(303);
    const proposalId = proposed.headers.location.split('/').pop()!;
    expect(await db.query(`SELECT 1 FROM staff_users WHERE email = $1`, [email])).toHaveLength(0);
    const approved = await backOffice.http().post(`/proposals/${proposalId}/approve`).set('Cookie', sessions.admin!.cookie).type('form').send({ _csrf: sessions.admin!.csrf });
    expect(approved.status).toBe(200);
    const link = /\/setup\?token=([A-Za-z0-9_-]{43})/.exec(approved.text)![1];
    expect((await backOffice.http().get(`/setup?token=${link}`)).status).toBe(200);
    const [row] = await db.query(`SELECT role, password_hash, setup_token_hash FROM staff_users WHERE email = $1`, [email]);
    expect(row).toMatchObject({ role: 'approver', password_hash: null });
    // Only the hash of the link is stored, and no audit record holds it.
    expect(row.setup_token_hash).not.toContain(link);
    expect(JSON.stringify(await db.query(`SELECT * FROM staff_audit_events`))).not.toContain(link);
  });

  it('keeps the audit trail append-only and a decided proposal unchangeable, in the database', async () => {
    await expect(db.query(`UPDATE staff_audit_events SET actor = 'someone else'`)).rejects.toThrow(/append-only/);
    await expect(db.query(`DELETE FROM staff_audit_events`)).rejects.toThrow(/append-only/);
    await expect(db.query(`UPDATE staff_proposals SET reason = 'rewritten afterwards' WHERE status <> 'pending'`)).rejects.toThrow(/already/);
    await expect(db.query(`DELETE FROM staff_proposals`)).rejects.toThrow(/never deleted/);
  });

  it('disabling an account ends its sessions at once', async () => {
    const person = await createStaffUser(backOffice.app, 'support');
    const signedIn = await staffSignIn(backOffice.http, person);
    expect((await backOffice.http().get('/audit').set('Cookie', signedIn.cookie)).status).toBe(200);
    const disabled = await backOffice.http().post(`/staff/${person.id}/disable`).set('Cookie', sessions.admin!.cookie).type('form').send({ _csrf: sessions.admin!.csrf, confirmed: 'yes', reason: 'Left the company today' });
    expect(disabled.status).toBe(303);
    expect((await backOffice.http().get('/audit').set('Cookie', signedIn.cookie)).status).toBe(303);
    const [record] = await db.query(`SELECT actor_staff_id, reason FROM staff_audit_events WHERE action = 'staff.disabled' AND subject_id = $1`, [person.id]);
    expect(record).toEqual({ actor_staff_id: people.admin!.id, reason: 'Left the company today' });
  });

  it('answers /metrics and /health/* only on its operational port, never on the port people reach', async () => {
    for (const path of ['/metrics', '/health/live', '/health/ready', '/metrics?format=x', '/health/ready/', '/METRICS', '/Health/Live//']) {
      const onAppPort = await backOffice.http().get(path);
      expect({ path, status: onAppPort.status, text: onAppPort.text }).toEqual({ path, status: 404, text: 'Not Found' });
    }
    expect((await backOffice.operationalHttp().get('/health/ready')).status).toBe(200);
    expect((await backOffice.operationalHttp().get('/health/live')).status).toBe(200);
    expect((await backOffice.operationalHttp().get('/metrics')).text).toContain('review_queue_items');
    // The operational port serves nothing else: no sign-in page, no staff page.
    expect((await backOffice.operationalHttp().get('/sign-in')).status).toBe(404);
    expect((await backOffice.operationalHttp().post('/metrics')).status).toBe(404);
  });

  it('exports the review queues for alerting, matching the database', async () => {
    const text = (await backOffice.operationalHttp().get('/metrics')).text;
    const value = (name: string, queue: string) => Number(new RegExp(`^${name}\\{queue="${queue}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    const [counts] = await db.query(`SELECT (SELECT count(*) FROM purchase_transactions WHERE status = 'review')::int AS purchases, (SELECT count(*) FROM payouts WHERE status = 'needs_review')::int AS payouts`);
    expect(value('review_queue_items', 'purchases')).toBe(counts.purchases);
    expect(value('review_queue_items', 'payouts')).toBe(counts.payouts);
    expect(value('review_queue_oldest_age_seconds', 'purchases')).toBeGreaterThanOrEqual(0);
    expect(value('review_queue_oldest_age_seconds', 'payouts')).toBeGreaterThanOrEqual(0);
  });
});
