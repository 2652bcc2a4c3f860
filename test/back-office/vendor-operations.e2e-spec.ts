import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { ALL_ABILITIES } from '#auth';
import { startBackOffice, startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { createStaffUser, staffSignIn, type StaffSignedIn } from '../support/back-office.js';
import { bearer, createTestVendor } from '../support/vendors.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';

/**
 * The vendor operations the back-office shares with the operator CLI (release for production,
 * abilities): each changes what the CLI changes (the database and the vendor API's answer),
 * needs a written reason and operator rights (support is refused and nothing changes), and
 * writes the same audit record with its before and after, whether from a page or from `ops`.
 */
describe('back-office vendor operations', () => {
  let backOffice: RunningApp;
  let purchase: RunningApp;
  let db: DataSource;
  const session: Partial<Record<'support' | 'operator', StaffSignedIn>> = {};
  const operatorId: { id?: string } = {};

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    backOffice = await startBackOffice();
    purchase = await startPurchaseGateway();
    db = backOffice.app.get(DataSource);
    const operator = await createStaffUser(backOffice.app, 'operator');
    operatorId.id = operator.id;
    session.operator = await staffSignIn(backOffice.http, operator);
    session.support = await staffSignIn(backOffice.http, await createStaffUser(backOffice.app, 'support'));
  }, 90_000);

  afterAll(async () => {
    await purchase?.close();
    await backOffice?.close();
  });

  const form = (who: keyof typeof session, path: string, fields: Record<string, string | string[]>) =>
    backOffice.http().post(path).set('Cookie', session[who]!.cookie).type('form').send({ _csrf: session[who]!.csrf, ...fields });
  const vendorRow = async (id: string) => (await db.query(`SELECT production_released_at, enabled_abilities FROM vendors WHERE id = $1`, [id]))[0];
  const auditOf = (id: string, action: string) =>
    db.query(`SELECT actor, actor_staff_id, reason, details FROM staff_audit_events WHERE vendor_id = $1 AND action = $2 ORDER BY id`, [id, action]);

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

  it('ops vendor:release and vendor:abilities write the same audit records, with actor ops', async () => {
    const env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL };
    const { vendor } = await createTestVendor(purchase.app, 'Released by the CLI');
    await run('node', [CLI, 'vendor:release', '--vendor', vendor.id, '--reason', 'Go-live by CLI, OPS-4412'], { env, timeout: 30_000 });
    await run('node', [CLI, 'vendor:abilities', '--vendor', vendor.id, '--disable', 'limits:read', '--reason', 'CLI ticket 8813'], { env, timeout: 30_000 });
    const releasedAt = (await vendorRow(vendor.id)).production_released_at as Date;
    expect(await auditOf(vendor.id, 'vendor.released')).toEqual([
      { actor: 'ops', actor_staff_id: null, reason: 'Go-live by CLI, OPS-4412', details: { before: { production_released_at: null }, after: { production_released_at: releasedAt.toISOString() } } },
    ]);
    const [abilities] = await auditOf(vendor.id, 'vendor.abilities_set');
    expect(abilities).toMatchObject({ actor: 'ops', actor_staff_id: null, reason: 'CLI ticket 8813' });
    expect(abilities.details.after.enabled_abilities).not.toContain('limits:read');
  });
});
