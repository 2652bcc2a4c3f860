import { existsSync } from 'node:fs';
import pg from 'pg';
import { bearer, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import { mobile, purchase, settle } from '../purchase/purchase-helpers.js';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';
import type { TestVendor } from '../support/vendors.js';
import { runOpsWithin } from '../support/ops-cli.js';

const OPS = 'dist/apps/ops/src/main.js';

/** A browser's cookie jar and form posting, over fetch, against the compiled dashboard. */
class Visitor {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async get(path: string): Promise<{ status: number; text: string; location: string | null }> {
    return this.send(path, { method: 'GET' });
  }

  async post(path: string, form: Record<string, string | string[]>): Promise<{ status: number; text: string; location: string | null }> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) for (const item of ([] as string[]).concat(value)) body.append(key, item);
    return this.send(path, { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private async send(path: string, init: RequestInit): Promise<{ status: number; text: string; location: string | null }> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.base}${path}`, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value === '' || /Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, text: await response.text(), location: response.headers.get('location') };
  }
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

/**
 * Staff invite the first owner with the compiled operator CLI; the owner sets a password on the
 * one-time link, signs in, creates a token and manages the team, all against the compiled
 * dashboard logging at info. Its whole output is then searched for every secret it handled.
 */
describe('dashboard accounts: invite, team and secrets in logs', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let dashboard: SpawnedApp;
  let env: NodeJS.ProcessEnv;
  let db: pg.Client;
  const secrets: { kind: string; value: string }[] = [];

  const ops = (...args: string[]) => runOpsWithin(90_000, env, ...args);

  beforeAll(async () => {
    if (!existsSync(OPS)) throw new Error(`${OPS} is missing: run npm run build first (npm test does)`);
    assertCompiled('dashboard');
    stack = await startPurchaseStack();
    vendor = await stack.vendor({ name: 'Invited vendor' });
    const port = await freePort();
    env = {
      PATH: process.env.PATH,
      APP_ENV: 'test',
      DATABASE_URL: process.env.E2E_DATABASE_URL,
      REDIS_URL: process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `{e2e-dash-${process.pid}}`,
      DASHBOARD_PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
    dashboard = spawnApp('dashboard', { ...env, LOG_LEVEL: 'debug' } as Record<string, string>, port);
    await dashboard.ready;
    db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await dashboard?.kill('SIGTERM');
    await db?.end();
    await stack?.close();
  });

  const email = `first.owner+${process.pid}@invited.example`;
  const password = 'a long and unguessable passphrase 7';
  let owner: Visitor;

  it('ops dashboard:invite prints a one-time link that expires; the secret is stored only as a hash', async () => {
    const invite = await ops('dashboard:invite', '--vendor', vendor.vendor.id, '--email', email, '--role', 'owner');
    expect(invite.code).toBe(0);
    expect(invite.json).toEqual({ invite_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/invite\?token=[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String) });
    const hours = (Date.parse(invite.json.expires_at as string) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71);
    expect(hours).toBeLessThanOrEqual(72);
    const secret = new URL(invite.json.invite_url as string).searchParams.get('token')!;
    secrets.push({ kind: 'invite secret', value: secret });
    const { rows } = await db.query(`SELECT token_hash, role, accepted_at FROM dashboard_invites WHERE email = $1`, [email]);
    expect(rows).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/), role: 'owner', accepted_at: null }]);
    expect(JSON.stringify(rows)).not.toContain(secret);

    const bad = await ops('dashboard:invite', '--vendor', vendor.vendor.id, '--email', 'x@y.example', '--role', 'admin');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--role must be owner, developer, finance or viewer');

    // The link: the password policy applies, then the invite is used once.
    owner = new Visitor(dashboard.url);
    const path = new URL(invite.json.invite_url as string).pathname + new URL(invite.json.invite_url as string).search;
    const page = await owner.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain(email);
    const weak = await owner.post(path, { _pre: field(page.text, '_pre'), password: 'short', confirm: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('Use at least 12 characters.');
    const accepted = await owner.post(path, { _pre: field(weak.text, '_pre'), password, confirm: password });
    expect(accepted.status).toBe(303);
    expect(owner.cookie('__Host-dash_session')).toBeDefined();
    secrets.push({ kind: 'password', value: password }, { kind: 'session secret', value: owner.cookie('__Host-dash_session')! });
    const { rows: users } = await db.query(`SELECT password_hash, role FROM dashboard_users WHERE email = $1`, [email]);
    expect(users).toEqual([{ password_hash: expect.stringMatching(/^\$argon2id\$/), role: 'owner' }]);
    expect((await new Visitor(dashboard.url).get(path)).status).toBe(404);
  });

  it("lets the owner invite, re-role and remove people; removing someone leaves the vendor's tokens working", async () => {
    const tokens = await owner.get('/tokens');
    const created = await owner.post('/tokens', { _csrf: field(tokens.text, '_csrf'), name: 'Integration', abilities: ['transactions:read'], expires_in: '1d' });
    // Post/redirect/get: the secret is on the page the POST redirects to, once; a reload shows none.
    expect(created).toMatchObject({ status: 303, location: '/tokens' });
    const shown = await owner.get('/tokens');
    const secret = /id="token-secret">([^<]+)</.exec(shown.text)![1];
    expect((await owner.get('/tokens')).text).not.toContain('token-secret');
    secrets.push({ kind: 'token secret', value: secret }, { kind: 'csrf token', value: field(tokens.text, '_csrf') });

    const team = await owner.get('/team');
    const csrf = field(team.text, '_csrf');
    const inviteeEmail = `developer+${process.pid}@invited.example`;
    const invited = await owner.post('/team/invite', { _csrf: csrf, email: inviteeEmail, role: 'developer' });
    expect(invited).toMatchObject({ status: 303, location: '/team' });
    const link = /id="invite-link">([^<]+)</.exec((await owner.get('/team')).text)![1].replace(/&amp;/g, '&');
    expect((await owner.get('/team')).text).not.toContain('invite-link');
    secrets.push({ kind: 'invite secret', value: new URL(link).searchParams.get('token')! });
    const developer = new Visitor(dashboard.url);
    const invitePath = new URL(link).pathname + new URL(link).search;
    const page = await developer.get(invitePath);
    const developerPassword = 'developer passphrase that is long';
    expect((await developer.post(invitePath, { _pre: field(page.text, '_pre'), password: developerPassword, confirm: developerPassword })).status).toBe(303);
    secrets.push({ kind: 'password', value: developerPassword });

    // The developer's token, created before they leave, keeps working after.
    const devTokens = await developer.get('/tokens');
    const devCreated = await developer.post('/tokens', { _csrf: field(devTokens.text, '_csrf'), name: 'Dev token', abilities: ['transactions:read'], expires_in: '1d' });
    expect(devCreated.status).toBe(303);
    const devSecret = /id="token-secret">([^<]+)</.exec((await developer.get('/tokens')).text)![1];
    secrets.push({ kind: 'token secret', value: devSecret });

    const [{ id: developerId }] = (await db.query(`SELECT id FROM dashboard_users WHERE email = $1`, [inviteeEmail])).rows;
    expect((await owner.post(`/team/${developerId}/role`, { _csrf: csrf, role: 'viewer' })).status).toBe(303);
    expect((await developer.get('/tokens')).status).toBe(403);
    const confirm = await owner.get(`/team/${developerId}/remove`);
    expect(confirm.text).toContain('does not revoke any API token');
    expect((await owner.post(`/team/${developerId}/remove`, { _csrf: csrf })).status).toBe(303);
    expect((await developer.get('/purchases')).status).toBe(303);
    expect((await stack.gateway.http().get('/api/v1/transactions').set(bearer(devSecret))).status).toBe(200);

    // The last owner cannot demote or remove themselves out of the team.
    const [{ id: ownerId }] = (await db.query(`SELECT id FROM dashboard_users WHERE email = $1`, [email])).rows;
    const demote = await owner.post(`/team/${ownerId}/role`, { _csrf: csrf, role: 'viewer' });
    expect(demote.status).toBe(400);
    expect(demote.text).toContain('at least one owner');
    const audit = (await db.query(`SELECT action FROM dashboard_audit_events WHERE vendor_id = $1 ORDER BY id`, [vendor.vendor.id])).rows.map((row) => row.action);
    expect(audit).toEqual(expect.arrayContaining(['user.invited', 'user.joined', 'token.created', 'user.role_changed', 'user.removed']));
  });

  it('reveals a PIN to the owner on request', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821234500') });
    await settle(stack, vendor, bought.transaction.id, ['completed']);
    const detail = await owner.get(`/purchases/${bought.transaction.id}`);
    const revealed = await owner.post(`/purchases/${bought.transaction.id}/fulfilment`, { _csrf: field(detail.text, '_csrf') });
    expect(revealed.status).toBe(200);
    const pin = /id="fulfilment-pin">([^<]+)</.exec(revealed.text)![1];
    expect(pin.length).toBeGreaterThan(5);
    secrets.push({ kind: 'PIN', value: pin });
  });

  it('wrote no password, session secret, CSRF token, invite secret, token secret or PIN to its logs', async () => {
    // A failed sign-in with a password that is never right must not be logged either.
    const stranger = new Visitor(dashboard.url);
    const page = await stranger.get('/sign-in');
    await stranger.post('/sign-in', { _pre: field(page.text, '_pre'), email, password: 'the wrong one but secret' });
    secrets.push({ kind: 'password', value: 'the wrong one but secret' });
    const output = dashboard.output();
    expect(output).toMatch(/"url":"\/invite\?token=\[REDACTED\]"/);
    expect(output.length).toBeGreaterThan(1_000);
    const found = secrets.filter((secret) => output.includes(secret.value)).map((secret) => secret.kind);
    expect(found).toEqual([]);
  });
});
