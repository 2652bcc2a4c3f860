import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { ALL_ABILITIES } from '#auth';
import { PAYOUT_METHODS, PayoutLedgerService } from '#payout';
import { PurchaseSpendControlsService } from '#purchase';
import { StaffAuditLog } from '#staff';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, staffSignIn, type StaffSignedIn } from '../support/back-office.js';
import { PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import { bearer, createTestVendor } from '../support/vendors.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';

/**
 * The vendor operations the back-office shares with the operator CLI (release for production,
 * abilities, products, spend limits, pause/resume): each changes what the CLI changes (the database and the vendor API's answer),
 * needs a written reason and operator rights (support is refused and nothing changes), and
 * writes the same audit record with its before and after, whether from a page or from `ops`.
 */
describe('back-office vendor operations', () => {
  let backOffice: RunningApp;
  let stack: PurchaseStack;
  let purchase: RunningApp;
  let db: DataSource;
  const session: Partial<Record<'support' | 'operator' | 'approver' | 'secondApprover', StaffSignedIn>> = {};
  const operatorId: { id?: string } = {};

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    // Limits up to R1 000.00 (100 000 cents) can be raised by one person.
    backOffice = await startBackOffice({ config: { STAFF_FOUR_EYES_ABOVE_CENTS: '100000' } });
    // The gateway with the sandbox's catalogue synced, so enabling and withdrawing products shows in GET /products.
    stack = await startPurchaseStack({ worker: false });
    purchase = stack.gateway;
    db = backOffice.app.get(DataSource);
    const operator = await createStaffUser(backOffice.app, 'operator');
    operatorId.id = operator.id;
    session.operator = await staffSignIn(backOffice.http, operator);
    session.approver = await staffSignIn(backOffice.http, await createStaffUser(backOffice.app, 'approver'));
    session.support = await staffSignIn(backOffice.http, await createStaffUser(backOffice.app, 'support'));
    session.secondApprover = await staffSignIn(backOffice.http, await createStaffUser(backOffice.app, 'approver'));
  }, 90_000);

  afterAll(async () => {
    await stack?.close();
    await backOffice?.close();
  });

  // Dangerous actions (approving money, switching abilities off, withdrawing products, publishing
  // pricing) are the confirmed second step here; their first step is tested in the browser tests.
  const form = (who: keyof typeof session, path: string, fields: Record<string, string | string[]>) =>
    backOffice.http().post(path).set('Cookie', session[who]!.cookie).type('form').send({ _csrf: session[who]!.csrf, confirmed: 'yes', ...(path.endsWith('/approve') ? { reason: 'Checked the evidence on the proposal page' } : {}), ...fields });
  const vendorRow = async (id: string) => (await db.query(`SELECT production_released_at, enabled_abilities FROM vendors WHERE id = $1`, [id]))[0];
  const auditOf = (id: string, action: string) =>
    db.query(`SELECT actor, actor_staff_id, reason, details FROM staff_audit_events WHERE vendor_id = $1 AND action = $2 ORDER BY id`, [id, action]);

  it('creates a vendor with a reason and its audit record, unreleased; support is refused; a bad name changes nothing', async () => {
    const name = `Created in the back-office ${Date.now()}`;
    const count = async () => (await db.query(`SELECT count(*)::int AS n FROM vendors WHERE name = $1`, [name]))[0].n as number;
    expect((await form('support', '/vendors', { name, reason: 'support cannot create vendors' })).status).toBe(403);
    expect((await form('operator', '/vendors', { name, reason: 'short' })).status).toBe(400);
    const blank = await form('operator', '/vendors', { name: '   ', reason: 'Signed contract, ticket OPS-5000' });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain('name must be 1 to 200 characters');
    expect(await count()).toBe(0);
    const created = await form('operator', '/vendors', { name, reason: 'Signed contract, ticket OPS-5001' });
    expect(created.status).toBe(303);
    const [vendor] = await db.query(`SELECT id, production_released_at, enabled_abilities FROM vendors WHERE name = $1`, [name]);
    expect(created.headers.location).toBe(`/vendors/${vendor.id}`);
    expect(vendor.production_released_at).toBeNull();
    expect([...vendor.enabled_abilities].sort()).toEqual([...ALL_ABILITIES].sort());
    const [record] = await auditOf(vendor.id, 'vendor.created');
    expect(record).toMatchObject({ actor_staff_id: operatorId.id, reason: 'Signed contract, ticket OPS-5001', details: { before: {}, after: { name } } });
    const list = await backOffice.http().get('/vendors').set('Cookie', session.support!.cookie);
    expect(list.text).toContain(name);
    expect(list.text).not.toContain('Create vendor');
  });

  it('lists each vendor with its own payout account, zero for a vendor without one', async () => {
    const ledger = backOffice.app.get(PayoutLedgerService);
    const funded = (await createTestVendor(purchase.app, 'Listed with R750')).vendor;
    const other = (await createTestVendor(purchase.app, 'Listed with R12.34')).vendor;
    const unfunded = (await createTestVendor(purchase.app, 'Listed without an account')).vendor;
    await ledger.fund(funded.id, 75_000n);
    await ledger.fund(other.id, 1_234n);
    const list = await backOffice.http().get('/vendors').set('Cookie', session.support!.cookie);
    expect(list.status).toBe(200);
    const amountsOf = (id: string) => [...new RegExp(`<a href="/vendors/${id}">[\\s\\S]*?</tr>`).exec(list.text)![0].matchAll(/<td class="num">([^<]*)<\/td>/g)].map((match) => match[1]);
    expect(amountsOf(funded.id)).toEqual(['ZAR 750.00', 'ZAR 0.00']);
    expect(amountsOf(other.id)).toEqual(['ZAR 12.34', 'ZAR 0.00']);
    expect(amountsOf(unfunded.id)).toEqual(['ZAR 0.00', 'ZAR 0.00']);
  });

  it('releases a vendor for production with a reason, once, with its audit record; support is refused', async () => {
    const { vendor } = await createTestVendor(purchase.app, 'Released from the back-office');
    expect((await form('support', `/vendors/${vendor.id}/release`, { reason: 'support cannot release vendors' })).status).toBe(403);
    expect((await form('operator', `/vendors/${vendor.id}/release`, { reason: 'short' })).status).toBe(400);
    expect((await vendorRow(vendor.id)).production_released_at).toBeNull();
    const released = await form('operator', `/vendors/${vendor.id}/release`, { reason: 'Go-live checklist signed, ticket OPS-4411' });
    expect(released.status).toBe(303);
    const releasedAt = (await vendorRow(vendor.id)).production_released_at as Date;
    expect(releasedAt).toBeInstanceOf(Date);
    const [record] = await auditOf(vendor.id, 'vendor.released');
    expect(record).toEqual({
      actor: expect.any(String),
      actor_staff_id: operatorId.id,
      reason: 'Go-live checklist signed, ticket OPS-4411',
      details: { before: { production_released_at: null }, after: { production_released_at: releasedAt.toISOString() } },
    });
  });

  it('sets abilities as vendor:abilities does: a disabled ability is refused by the vendor API', async () => {
    const { vendor, token } = await createTestVendor(purchase.app, 'Abilities from the back-office');
    expect((await purchase.http().get('/api/v1/limits').set(bearer(token))).status).toBe(200);
    const keep = ALL_ABILITIES.filter((ability) => ability !== 'limits:read');
    expect((await form('support', `/vendors/${vendor.id}/abilities`, { abilities: keep, reason: 'support cannot change abilities' })).status).toBe(403);
    expect((await vendorRow(vendor.id)).enabled_abilities).toContain('limits:read');
    const saved = await form('operator', `/vendors/${vendor.id}/abilities`, { abilities: keep, reason: 'Vendor asked to stop limit reads, ticket 8812' });
    expect(saved.status).toBe(303);
    expect((await vendorRow(vendor.id)).enabled_abilities).toEqual(keep);
    expect((await purchase.http().get('/api/v1/limits').set(bearer(token))).status).toBe(403);
    const [record] = await auditOf(vendor.id, 'vendor.abilities_set');
    expect(record.details).toEqual({ before: { enabled_abilities: [...ALL_ABILITIES] }, after: { enabled_abilities: keep } });
    expect(record.actor_staff_id).toBe(operatorId.id);
  });

  it('sets limits at once up to the threshold and lowers them at once; a raise above it is a proposal its proposer cannot approve', async () => {
    const { vendor, token } = await createTestVendor(purchase.app, 'Limits from the back-office');
    const limits = async () => (await purchase.http().get('/api/v1/limits').set(bearer(token)).expect(200)).body.data;
    // The form takes the amounts in ZAR with two decimals; the limits are kept in cents.
    const fields = (daily: string, max: string) => ({ daily_cap: daily, transaction_max: max, velocity_count: '5', velocity_window_seconds: '60' });
    expect((await form('support', `/vendors/${vendor.id}/limits`, { ...fields('10.00', '5.00'), reason: 'support cannot set limits' })).status).toBe(403);
    expect((await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('1.5', '500.00'), reason: 'Vendor onboarding ticket 1' })).status).toBe(400);
    expect((await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('1000.00', '1.234'), reason: 'Vendor onboarding ticket 1' })).status).toBe(400);
    expect((await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('100000', '50000'), reason: 'Vendor onboarding ticket 1' })).status).toBe(400);
    expect((await limits()).configured).toBe(false);
    const direct = await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('1000.00', '500.00'), reason: 'Vendor onboarding ticket 1' });
    expect(direct.status).toBe(303);
    expect(await limits()).toMatchObject({ configured: true, daily_cap_minor: 100_000, transaction_max_minor: 50_000 });
    const [record] = await auditOf(vendor.id, 'limits.set');
    expect(record).toMatchObject({ actor_staff_id: operatorId.id, reason: 'Vendor onboarding ticket 1' });
    expect(record.details).toEqual({
      before: { daily_cap_minor: null, transaction_max_minor: null, velocity_count: null, velocity_window_seconds: null },
      after: { daily_cap_minor: 100_000, transaction_max_minor: 50_000, velocity_count: 5, velocity_window_seconds: 60 },
    });
    // One cent above the threshold: a proposal; nothing changes until another approver approves it.
    const raised = await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('1000.01', '500.00'), reason: 'Vendor grew, ticket 2' });
    expect(raised.status).toBe(303);
    const proposalId = /\/proposals\/([0-9a-f-]{36})$/.exec(raised.headers.location)![1];
    expect((await limits()).daily_cap_minor).toBe(100_000);
    expect((await form('operator', `/proposals/${proposalId}/approve`, {})).status).toBe(403);
    expect((await form('approver', `/proposals/${proposalId}/approve`, {})).status).toBe(200);
    expect((await limits()).daily_cap_minor).toBe(100_001);
    const approved = await db.query(`SELECT actor_staff_id, approved_by_staff_id FROM staff_audit_events WHERE proposal_id = $1 AND action = 'limits.set'`, [proposalId]);
    expect(approved).toEqual([{ actor_staff_id: operatorId.id, approved_by_staff_id: expect.any(String) }]);
    // A decrease, however large, needs no second person.
    expect((await form('operator', `/vendors/${vendor.id}/limits`, { ...fields('1.00', '0.50'), reason: 'Vendor under investigation' })).status).toBe(303);
    expect(await limits()).toMatchObject({ daily_cap_minor: 100, transaction_max_minor: 50 });
    // An approver's own raise waits for another approver: approving it themselves is refused.
    const own = await form('approver', `/vendors/${vendor.id}/limits`, { ...fields('1.00', '2000.00'), reason: 'Approver raising alone' });
    const ownId = /\/proposals\/([0-9a-f-]{36})$/.exec(own.headers.location)![1];
    expect((await form('approver', `/proposals/${ownId}/approve`, {})).status).toBe(409);
    expect((await limits()).transaction_max_minor).toBe(50);
  });

  it('decides whether a limits change needs a second person on the limits under the vendor\'s row lock, not on limits read before it', async () => {
    const { vendor, token } = await createTestVendor(purchase.app, 'Limits lowered meanwhile');
    const fields = { daily_cap: '2000.00', transaction_max: '500.00', velocity_count: '5', velocity_window_seconds: '60' };
    // R2 000.00 a day, above the threshold, set earlier (by an approved proposal or the CLI).
    await purchase.app.get(PurchaseSpendControlsService).setLimits(vendor.id, { dailyCapMinor: 200_000, transactionMaxMinor: 50_000, velocityCount: 5, velocityWindowSeconds: 60 });
    // Another staff change holds the vendor's row and lowers the daily cap to R500.00 while this one is submitted.
    const other = db.createQueryRunner();
    await other.connect();
    let submitted: Promise<Awaited<ReturnType<typeof form>>>;
    try {
      await other.startTransaction();
      await other.query(`SELECT id FROM vendors WHERE id = $1 FOR UPDATE`, [vendor.id]);
      await other.query(`UPDATE purchase_spend_controls SET daily_cap_cents = 50000 WHERE vendor_id = $1`, [vendor.id]);
      const [{ pid }] = await other.query(`SELECT pg_backend_pid() AS pid`);
      // The same limits as before the lowering: judged on the committed limits it is no raise; on the current ones it raises the cap fourfold, above the threshold.
      submitted = Promise.resolve(form('operator', `/vendors/${vendor.id}/limits`, { ...fields, reason: 'Restore the usual cap, ticket 6120' }));
      const waiting = async () => (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid]))[0].n as number;
      for (let attempt = 0; (await waiting()) === 0; attempt += 1) {
        if (attempt === 200) throw new Error('the limits change never waited for the vendor row lock');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await other.commitTransaction();
    } finally {
      await other.release();
    }
    const response = await submitted;
    expect(response.status).toBe(303);
    expect(response.headers.location).toMatch(/^\/proposals\/[0-9a-f-]{36}$/);
    expect((await purchase.http().get('/api/v1/limits').set(bearer(token)).expect(200)).body.data).toMatchObject({ daily_cap_minor: 50_000, transaction_max_minor: 50_000 });
    expect(await auditOf(vendor.id, 'limits.set')).toEqual([]);
    expect(await db.query(`SELECT kind, status, params->>'daily_cap_minor' AS daily FROM staff_proposals WHERE subject_id = $1`, [vendor.id])).toEqual([
      { kind: 'limits.set', status: 'pending', daily: '200000' },
    ]);
  });

  it('pauses and resumes one vendor\'s purchases, as purchases:pause --vendor does, with audit records', async () => {
    const { vendor, token } = await createTestVendor(purchase.app, 'Paused from the back-office');
    const paused = async () => (await purchase.http().get('/api/v1/limits').set(bearer(token)).expect(200)).body.data.purchases_paused as boolean;
    expect((await form('support', `/vendors/${vendor.id}/pause`, { paused: 'true', reason: 'support cannot pause vendors' })).status).toBe(403);
    expect(await paused()).toBe(false);
    expect((await form('operator', `/vendors/${vendor.id}/pause`, { paused: 'true', reason: 'Fraud alert, ticket 77' })).status).toBe(303);
    expect(await paused()).toBe(true);
    expect((await form('operator', `/vendors/${vendor.id}/pause`, { paused: 'false', reason: 'Fraud alert cleared, ticket 77' })).status).toBe(303);
    expect(await paused()).toBe(false);
    const records = await db.query(`SELECT action, reason, details->'after'->'paused' AS paused FROM staff_audit_events WHERE vendor_id = $1 ORDER BY id`, [vendor.id]);
    expect(records).toEqual([
      { action: 'purchases.paused', reason: 'Fraud alert, ticket 77', paused: true },
      { action: 'purchases.resumed', reason: 'Fraud alert cleared, ticket 77', paused: false },
    ]);
  });

  it('enables and withdraws products as catalogue:enable does: a withdrawn product disappears from the vendor API', async () => {
    const { vendor, token } = await createTestVendor(purchase.app, 'Products from the back-office');
    const product = () => purchase.http().get(`/api/v1/products/${PRODUCTS.fixedAirtime}`).set(bearer(token));
    // Not enabled: PRODUCT_UNAVAILABLE (422), the purchase contract's "refresh catalogue" (issue 25).
    expect((await product()).status).toBe(422);
    expect((await form('support', `/vendors/${vendor.id}/products`, { products: String(PRODUCTS.fixedAirtime), enable: 'true', reason: 'support cannot enable products' })).status).toBe(403);
    expect((await form('operator', `/vendors/${vendor.id}/products`, { products: '12x', enable: 'true', reason: 'Vendor onboarding ticket 3' })).status).toBe(400);
    expect((await form('operator', `/vendors/${vendor.id}/products`, { products: String(PRODUCTS.fixedAirtime), enable: 'true', reason: 'Vendor onboarding ticket 3' })).status).toBe(303);
    expect((await product()).status).toBe(200);
    expect((await form('operator', `/vendors/${vendor.id}/products`, { products: String(PRODUCTS.fixedAirtime), enable: 'false', reason: 'Product withdrawn, ticket 4' })).status).toBe(303);
    expect((await product()).body.error.code).toBe('PRODUCT_UNAVAILABLE');
    const records = await db.query(`SELECT action, actor_staff_id, details FROM staff_audit_events WHERE vendor_id = $1 ORDER BY id`, [vendor.id]);
    expect(records).toEqual([
      { action: 'products.enabled', actor_staff_id: operatorId.id, details: { before: { requested: [PRODUCTS.fixedAirtime] }, after: { enabled_product_ids: [PRODUCTS.fixedAirtime] } } },
      { action: 'products.disabled', actor_staff_id: operatorId.id, details: { before: { requested: [PRODUCTS.fixedAirtime] }, after: { enabled_product_ids: [] } } },
    ]);
  });

  it('ops vendor:release, vendor:abilities, limits:set, purchases:pause and catalogue:enable/disable write the same audit records, with actor ops:<os user>', async () => {
    // The back-office's threshold (R1 000.00): the CLI's limit raises below stay one person's.
    const env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, STAFF_FOUR_EYES_ABOVE_CENTS: '100000' };
    // Without OPS_ACTOR the record names the OS user who ran the command.
    const actor = `ops:${userInfo().username}`;
    const { vendor, token } = await createTestVendor(purchase.app, 'Released by the CLI');
    await run('node', [CLI, 'vendor:release', '--vendor', vendor.id, '--reason', 'Go-live by CLI, OPS-4412'], { env, timeout: 90_000 });
    await run('node', [CLI, 'vendor:abilities', '--vendor', vendor.id, '--disable', 'limits:read', '--reason', 'CLI ticket 8813'], { env, timeout: 90_000 });
    const releasedAt = (await vendorRow(vendor.id)).production_released_at as Date;
    expect(await auditOf(vendor.id, 'vendor.released')).toEqual([
      { actor, actor_staff_id: null, reason: 'Go-live by CLI, OPS-4412', details: { before: { production_released_at: null }, after: { production_released_at: releasedAt.toISOString() } } },
    ]);
    const [abilities] = await auditOf(vendor.id, 'vendor.abilities_set');
    expect(abilities).toMatchObject({ actor, actor_staff_id: null, reason: 'CLI ticket 8813' });
    expect(abilities.details.after.enabled_abilities).not.toContain('limits:read');
    await run('node', [CLI, 'limits:set', '--vendor', vendor.id, '--daily-cap-minor', '1000', '--transaction-max-minor', '500', '--velocity-count', '5', '--velocity-window-seconds', '60', '--reason', 'CLI limits 8814'], { env, timeout: 90_000 });
    await run('node', [CLI, 'purchases:pause', '--vendor', vendor.id, '--reason', 'CLI pause 8815'], { env, timeout: 90_000 });
    await run('node', [CLI, 'catalogue:enable', '--vendor', vendor.id, '--products', 'all', '--reason', 'CLI products 8816'], { env, timeout: 90_000 });
    await run('node', [CLI, 'catalogue:disable', '--vendor', vendor.id, '--products', String(PRODUCTS.fixedAirtime), '--reason', 'CLI products 8817'], { env, timeout: 90_000 });
    expect((await purchase.http().get(`/api/v1/products/${PRODUCTS.fixedAirtime}`).set(bearer(token))).status).toBe(422);
    const later = await db.query(`SELECT actor, action, reason FROM staff_audit_events WHERE vendor_id = $1 AND action IN ('limits.set', 'purchases.paused', 'products.enabled', 'products.disabled') ORDER BY id`, [vendor.id]);
    expect(later).toEqual([
      { actor, action: 'limits.set', reason: 'CLI limits 8814' },
      { actor, action: 'purchases.paused', reason: 'CLI pause 8815' },
      { actor, action: 'products.enabled', reason: 'CLI products 8816' },
      { actor, action: 'products.disabled', reason: 'CLI products 8817' },
    ]);
  });

  it('publishes a pricing version from the pricing page with its pricing.published record (before and after version ids); support is refused', async () => {
    const current = async () => (await db.query(`SELECT id, margin_bps FROM purchase_pricing_versions ORDER BY id DESC LIMIT 1`))[0] as { id: number; margin_bps: number } | undefined;
    const before = await current();
    expect((await form('support', '/pricing', { margin_bps: '250', reason: 'support cannot publish pricing' })).status).toBe(403);
    expect((await form('operator', '/pricing', { margin_bps: '2.5', reason: 'Quarterly pricing review Q4' })).status).toBe(400);
    expect(await current()).toEqual(before);
    const published = await form('operator', '/pricing', { margin_bps: '275', reason: 'Quarterly pricing review Q4' });
    expect(published.status).toBe(303);
    const after = (await current())!;
    expect(after.margin_bps).toBe(275);
    expect(after.id).not.toBe(before?.id);
    const [record] = await db.query(`SELECT actor_staff_id, subject_type, subject_id, reason, details FROM staff_audit_events WHERE action = 'pricing.published' ORDER BY id DESC LIMIT 1`);
    expect(record).toMatchObject({ actor_staff_id: operatorId.id, subject_type: 'pricing', subject_id: String(after.id), reason: 'Quarterly pricing review Q4' });
    expect(record.details).toMatchObject({ before: { version_id: before?.id ?? null }, after: { version_id: after.id, margin_bps: 275 } });
    const page = await backOffice.http().get('/pricing').set('Cookie', session.support!.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('current');
    expect(page.text).not.toContain('name="margin_bps"');
  });

  it('sets payout methods, a method fee and the account fee from the payout methods page, never beyond the catalogue, with their records', async () => {
    const { vendor } = await createTestVendor(purchase.app, 'Payout methods from the back-office');
    const path = `/vendors/${vendor.id}/payout-methods`;
    const methods = async () =>
      db.query(`SELECT method, enabled, fee_cents, minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1 ORDER BY method`, [vendor.id]);
    const shown = await backOffice.http().get(path).set('Cookie', session.operator!.cookie);
    expect(shown.status).toBe(200);
    // The form as shown (every method's current values, and the hidden copies of what was shown), with changes on top.
    const fields: Record<string, string> = {};
    for (const [, name, value] of shown.text.matchAll(/name="((?:shown_(?:enabled|fee|min|max)|fee|min|max)_[a-z0-9_]+)"[^>]*value="([^"]*)"/g)) fields[name] = value;
    expect(Object.keys(fields).length).toBe(7 * PAYOUT_METHODS.length);
    expect((await form('support', path, { ...fields, enabled_rtc_eft: 'on', reason: 'support cannot change methods' })).status).toBe(403);
    // A maximum above the catalogue's is refused and nothing changes.
    const beyond = await form('operator', path, { ...fields, enabled_rtc_eft: 'on', max_rtc_eft: '99999999.00', reason: 'Vendor payout onboarding 12' });
    expect(beyond.status).toBe(400);
    expect(await methods()).toEqual([]);
    const saved = await form('operator', path, { ...fields, enabled_rtc_eft: 'on', fee_rtc_eft: '3.25', reason: 'Vendor payout onboarding 12' });
    expect(saved.status).toBe(303);
    expect(await methods()).toEqual([{ method: 'rtc_eft', enabled: true, fee_cents: '325', minimum_cents: null, maximum_cents: null }]);
    expect((await form('operator', `${path}/fee`, { amount: '4.50', reason: 'Vendor payout onboarding 13' })).status).toBe(303);
    expect((await db.query(`SELECT fee_per_payout_cents FROM payout_accounts WHERE vendor_id = $1`, [vendor.id]))[0].fee_per_payout_cents).toBe('450');
    const records = await db.query(`SELECT action, actor_staff_id, reason, details FROM staff_audit_events WHERE vendor_id = $1 ORDER BY id`, [vendor.id]);
    expect(records.map((record: { action: string }) => record.action)).toEqual(['payout.methods_set', 'payout.fee_set']);
    expect(records[0]).toMatchObject({ actor_staff_id: operatorId.id, reason: 'Vendor payout onboarding 12' });
    expect(records[0].details.after.requested).toEqual({ enable: ['rtc_eft'], disable: [], fees: { rtc_eft: '325' }, limits: {} });
    expect(records[1].details).toEqual({ before: { fee_per_payout_cents: '0' }, after: { fee_per_payout_cents: '450' } });
  });

  it('commits a change with its audit record or not at all: a record the database refuses leaves the vendor unchanged', async () => {
    const { vendor } = await createTestVendor(purchase.app, 'Atomic vendor operation');
    // PostgreSQL refuses a NUL character in a text column: the audit insert fails after the domain change, in the same transaction.
    const refused = await form('operator', `/vendors/${vendor.id}/abilities`, { abilities: ['catalogue:read'], reason: 'Narrowing abilities, ticket\u0000 9' });
    expect(refused.status).toBe(500);
    expect((await vendorRow(vendor.id)).enabled_abilities).toEqual([...ALL_ABILITIES]);
    const released = await form('operator', `/vendors/${vendor.id}/release`, { reason: 'Go-live, ticket\u0000 10' });
    expect(released.status).toBe(500);
    expect((await vendorRow(vendor.id)).production_released_at).toBeNull();
    expect(await db.query(`SELECT id FROM staff_audit_events WHERE vendor_id = $1`, [vendor.id])).toEqual([]);
  });

  it('two approvers approving the same funding proposal at once credit the ledger once', async () => {
    const { vendor } = await createTestVendor(purchase.app, 'Raced funding approval');
    const proposed = await form('operator', `/vendors/${vendor.id}/fund`, { amount: '5000.00', reason: 'EFT deposit ref 55120' });
    expect(proposed.status).toBe(303);
    const proposalId = /\/proposals\/([0-9a-f-]{36})$/.exec(proposed.headers.location)![1];
    const outcomes = await Promise.all([form('approver', `/proposals/${proposalId}/approve`, {}), form('secondApprover', `/proposals/${proposalId}/approve`, {})]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 409]);
    expect(await db.query(`SELECT kind, amount_cents FROM ledger_entries WHERE vendor_id = $1`, [vendor.id])).toEqual([{ kind: 'fund', amount_cents: '500000' }]);
    expect((await db.query(`SELECT available_cents FROM payout_accounts WHERE vendor_id = $1`, [vendor.id]))[0].available_cents).toBe('500000');
    expect(await db.query(`SELECT count(*)::int AS n FROM staff_audit_events WHERE proposal_id = $1 AND action = 'payout.funded'`, [proposalId])).toEqual([{ n: 1 }]);
  });

  it('ops pricing:publish, payout:methods, payout:fee and the global purchases:pause/resume write audit records, with actor ops:<os user>', async () => {
    // The back-office's threshold (R1 000.00): the CLI's limit raises below stay one person's.
    const env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, STAFF_FOUR_EYES_ABOVE_CENTS: '100000' };
    const actor = `ops:${userInfo().username}`;
    const { vendor } = await createTestVendor(purchase.app, 'Payout methods by the CLI');
    await run('node', [CLI, 'payout:methods', '--vendor', vendor.id, '--enable', 'rtc_eft', '--fee', 'rtc_eft=1.75', '--reason', 'CLI methods 8820'], { env, timeout: 90_000 });
    await run('node', [CLI, 'payout:fee', '--vendor', vendor.id, '--amount', '2.00', '--reason', 'CLI fee 8821'], { env, timeout: 90_000 });
    const records = await db.query(`SELECT actor, action, reason, details->'after' AS after FROM staff_audit_events WHERE vendor_id = $1 ORDER BY id`, [vendor.id]);
    expect(records).toEqual([
      { actor, action: 'payout.methods_set', reason: 'CLI methods 8820', after: expect.objectContaining({ requested: { enable: ['rtc_eft'], disable: [], fees: { rtc_eft: '175' }, limits: {} } }) },
      { actor, action: 'payout.fee_set', reason: 'CLI fee 8821', after: { fee_per_payout_cents: '200' } },
    ]);
    const { stdout } = await run('node', [CLI, 'pricing:publish', '--margin-bps', '300', '--reason', 'CLI pricing 8822'], { env, timeout: 90_000 });
    const version = JSON.parse(stdout) as { id: number };
    expect(await db.query(`SELECT actor, subject_type, reason FROM staff_audit_events WHERE action = 'pricing.published' AND subject_id = $1`, [String(version.id)])).toEqual([
      { actor, subject_type: 'pricing', reason: 'CLI pricing 8822' },
    ]);
    await run('node', [CLI, 'purchases:pause', '--reason', 'CLI platform pause 8823'], { env, timeout: 90_000 });
    await run('node', [CLI, 'purchases:resume', '--reason', 'CLI platform resume 8824'], { env, timeout: 90_000 });
    const platform = await db.query(`SELECT actor, action, subject_type, vendor_id, details->'after'->'paused' AS paused FROM staff_audit_events WHERE subject_type = 'platform' ORDER BY id`);
    expect(platform).toEqual([
      { actor, action: 'purchases.paused', subject_type: 'platform', vendor_id: null, paused: true },
      { actor, action: 'purchases.resumed', subject_type: 'platform', vendor_id: null, paused: false },
    ]);
  });

  it('lists the audit trail newest first by number, also where the ids gain a digit', async () => {
    // Move the id sequence to just below the next power of ten, so the twelve records below cross
    // it: ordered as text, "…99" would come before "…100".
    const [{ next }] = await db.query(`SELECT nextval(pg_get_serial_sequence('staff_audit_events', 'id'))::text AS next`);
    await db.query(`SELECT setval(pg_get_serial_sequence('staff_audit_events', 'id'), $1)`, [String(10n ** BigInt(next.length) - 6n)]);
    const audit = backOffice.app.get(StaffAuditLog);
    const subjectId = `ordering-${Date.now()}`;
    for (let i = 0; i < 12; i += 1) {
      await audit.record({ actor: { staffUserId: null, label: 'test' }, action: 'test.ordering', subjectType: 'test', subjectId, details: { i } });
    }
    const listed = await audit.list({ subjectType: 'test', subjectId });
    expect(listed.map((record) => record.details)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((i) => ({ i })));
  });
});
