import { existsSync } from 'node:fs';
import { generate } from 'otplib';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { cookieValue } from '../support/dashboard.js';
import { STAFF_PRE_COOKIE, STAFF_SESSION_COOKIE, staffSignInRequest } from '../support/back-office.js';
import { runOpsWithin } from '../support/ops-cli.js';

const CLI = 'dist/apps/ops/src/main.js';

/**
 * The compiled `ops staff:create` and `staff:reset-totp` against this run's database, and the
 * setup link they print used in the back-office: a password and a first code, once; a reset
 * clears the authenticator, ends sessions and needs the password to enrol the new one.
 */
describe('ops staff commands and setup links', () => {
  let backOffice: RunningApp;
  let env: NodeJS.ProcessEnv;

  const ops = (...args: string[]) => runOpsWithin<Record<string, string>>(90_000, env, ...args);

  /** Opens the setup page and posts its form: `fields` from the key the page shows (the server's, sealed in the form). */
  async function completeSetup(setupUrl: string, fields: (secret: string) => Promise<Record<string, string>>) {
    const path = new URL(setupUrl).pathname + new URL(setupUrl).search;
    const page = await backOffice.http().get(path);
    expect(page.status).toBe(200);
    const pre = cookieValue(page.headers['set-cookie'], STAFF_PRE_COOKIE)!;
    const field = /name="_pre" value="([^"]+)"/.exec(page.text)![1];
    const secret = /id="totp-key">([A-Z2-7]+)</.exec(page.text)![1];
    const enrolment = /name="enrolment" value="([^"]+)"/.exec(page.text)![1];
    const response = await backOffice.http().post(path).set('Cookie', `${STAFF_PRE_COOKIE}=${pre}`).type('form').send({ _pre: field, enrolment, ...(await fields(secret)) });
    return Object.assign(response, { secret });
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    // OPS_ACTOR names who runs the CLI: the records say `ops:jane.ops`. The R120.50 funding below is
    // within the four-eyes threshold (R1 000.00), so one person applies it.
    env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, OPS_ACTOR: 'jane.ops', STAFF_FOUR_EYES_ABOVE_CENTS: '100000' };
    backOffice = await startBackOffice();
  });

  afterAll(async () => {
    await backOffice?.close();
  });

  it('creates an admin whose one-time link sets a password and an authenticator; sign-in then needs both', async () => {
    const email = `cli-admin-${Date.now()}@staff.example`;
    expect((await ops('staff:create', '--email', email, '--role', 'root')).code).toBe(1);
    const created = await ops('staff:create', '--email', email, '--role', 'admin', '--base-url', 'http://127.0.0.1:3300');
    expect(created.json).toMatchObject({ email, role: 'admin', setup_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3300\/setup\?token=[A-Za-z0-9_-]{43}$/) });

    const step = Math.floor(Date.now() / 30_000);
    const password = 'a long staff pass phrase';
    const wrongCode = await completeSetup(created.json.setup_url, async (secret) => ({ password, confirm: password, code: '000000' === (await generate({ secret, epoch: step * 30 })) ? '111111' : '000000' }));
    expect(wrongCode.status).toBe(400);
    // The previous window's code (drift tolerance), read when the form is sent: `step` may be over by then on a loaded machine.
    const done = await completeSetup(created.json.setup_url, async (secret) => ({ password, confirm: password, code: await generate({ secret, epoch: (Math.floor(Date.now() / 30_000) - 1) * 30 }) }));
    expect(done.status).toBe(303);
    const secret = done.secret;
    // The link worked once.
    expect((await backOffice.http().get(new URL(created.json.setup_url).pathname + new URL(created.json.setup_url).search)).status).toBe(404);

    // The current window's code: never the window the setup's code came from (a code is used once).
    const signedIn = await staffSignInRequest(backOffice.http, email, password, await generate({ secret, epoch: Math.floor(Date.now() / 30_000) * 30 }));
    expect(signedIn.status).toBe(303);
    const cookie = `${STAFF_SESSION_COOKIE}=${cookieValue(signedIn.headers['set-cookie'], STAFF_SESSION_COOKIE)!}`;
    expect((await backOffice.http().get('/staff').set('Cookie', cookie)).status).toBe(200);

    // Lost phone: the reset ends the session and the new link needs the existing password.
    const reset = await ops('staff:reset-totp', '--email', email);
    expect(reset.json.setup_url).toMatch(/\/setup\?token=/);
    expect((await backOffice.http().get('/staff').set('Cookie', cookie)).status).toBe(303);
    const now = Math.floor(Date.now() / 30_000);
    expect((await completeSetup(reset.json.setup_url, async (newSecret) => ({ password: 'not the password', code: await generate({ secret: newSecret, epoch: now * 30 }) }))).status).toBe(400);
    const redone = await completeSetup(reset.json.setup_url, async (newSecret) => ({ password, code: await generate({ secret: newSecret, epoch: (now - 1) * 30 }) }));
    expect(redone.status).toBe(303);
    const newSecret = redone.secret;
    expect((await staffSignInRequest(backOffice.http, email, password, await generate({ secret: newSecret, epoch: now * 30 }))).status).toBe(303);

    const audit = await backOffice.app.get((await import('typeorm')).DataSource).query(
      `SELECT actor, action FROM staff_audit_events WHERE subject_id = (SELECT id::text FROM staff_users WHERE email = $1) ORDER BY id`,
      [email],
    );
    expect(audit.map((row: { actor: string; action: string }) => `${row.actor} ${row.action}`)).toEqual([
      'ops:jane.ops staff.created',
      `${email} staff.setup_completed`,
      `${email} session.signed_in`,
      'ops:jane.ops staff.totp_reset',
      `${email} staff.totp_enrolled`,
      `${email} session.signed_in`,
    ]);
  });

  it('ops payout:fund writes the same audit record as a back-office funding, in the same transaction', async () => {
    const vendor = await ops('vendor:create', '--name', 'CLI funded vendor');
    const funded = await ops('payout:fund', '--vendor', vendor.json.id, '--amount', '120.50', '--note', 'EFT ref 99812');
    expect(funded.code).toBe(0);
    const records = await backOffice.app.get((await import('typeorm')).DataSource).query(
      `SELECT actor, actor_staff_id, action, reason, details->>'amount_cents' AS amount_cents FROM staff_audit_events WHERE subject_type = 'vendor' AND subject_id = $1 ORDER BY id`,
      [vendor.json.id],
    );
    // vendor:create writes its own record first.
    expect(records).toEqual([
      { actor: 'ops:jane.ops', actor_staff_id: null, action: 'vendor.created', reason: null, amount_cents: null },
      { actor: 'ops:jane.ops', actor_staff_id: null, action: 'payout.funded', reason: 'EFT ref 99812', amount_cents: '12050' },
    ]);
  });

  it('enrols only a key the server made: a key of the browser\'s choosing, or one sealed for another account, is refused', async () => {
    const email = `cli-chosen-${Date.now()}@staff.example`;
    const created = await ops('staff:create', '--email', email, '--role', 'support', '--base-url', 'http://127.0.0.1:3300');
    const other = await ops('staff:create', '--email', `cli-other-${Date.now()}@staff.example`, '--role', 'support', '--base-url', 'http://127.0.0.1:3300');
    const password = 'a long staff pass phrase';
    const zeros = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'; // the all-zero key, base32
    const path = (url: string) => new URL(url).pathname + new URL(url).search;
    const page = await backOffice.http().get(path(created.json.setup_url));
    const pre = cookieValue(page.headers['set-cookie'], STAFF_PRE_COOKIE)!;
    const form = { _pre: /name="_pre" value="([^"]+)"/.exec(page.text)![1], password, confirm: password, code: await generate({ secret: zeros }) };
    const post = (fields: Record<string, string>) => backOffice.http().post(path(created.json.setup_url)).set('Cookie', `${STAFF_PRE_COOKIE}=${pre}`).type('form').send({ ...form, ...fields });
    // The old form's field, a forged enrolment, and the other account's genuine one.
    expect((await post({ totp_secret: zeros })).status).toBe(400);
    expect((await post({ enrolment: `v1:${zeros}` })).status).toBe(400);
    const otherPage = await backOffice.http().get(path(other.json.setup_url));
    const otherSecret = /id="totp-key">([A-Z2-7]+)</.exec(otherPage.text)![1];
    const otherEnrolment = /name="enrolment" value="([^"]+)"/.exec(otherPage.text)![1];
    expect((await post({ enrolment: otherEnrolment, code: await generate({ secret: otherSecret }) })).status).toBe(400);
    const [row] = await backOffice.app.get((await import('typeorm')).DataSource).query(`SELECT password_hash, totp_secret_ciphertext FROM staff_users WHERE email = $1`, [email]);
    expect(row).toEqual({ password_hash: null, totp_secret_ciphertext: null });
    // The link still works with the key the page showed.
    expect((await backOffice.http().get(path(created.json.setup_url))).status).toBe(200);
  });
});
