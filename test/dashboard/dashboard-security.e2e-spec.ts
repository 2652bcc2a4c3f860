import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import { VendorService } from '#auth';
import { startPayoutGateway, startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, cookieValue, followRedirect, SESSION_COOKIE, signIn, signInRequest, type DashboardPerson, type SignedIn } from '../support/dashboard.js';
import { bearer, eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from '../purchase/purchase-helpers.js';
import { SIGN_IN_LIMITS } from '#web';

/**
 * The dashboard's security boundaries against the real gateways: sessions and API tokens never
 * stand in for each other, CSRF, vendor scoping, the role matrix, the sign-in limiter, cookie
 * flags and session expiry. Each refusal is checked in the database too, not only by status.
 */
describe('vendor dashboard security', () => {
  let stack: PurchaseStack;
  let payout: RunningApp;
  let dashboard: RunningApp;
  let vendorA: TestVendor;
  let vendorB: TestVendor;
  let owner: DashboardPerson;
  let session: SignedIn;

  beforeAll(async () => {
    stack = await startPurchaseStack();
    payout = await startPayoutGateway();
    dashboard = await startVendorDashboard();
    vendorA = await stack.vendor({ name: 'Dashboard vendor A' });
    vendorB = await stack.vendor({ name: 'Dashboard vendor B' });
    owner = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'owner');
    session = await signIn(dashboard.http, owner);
  }, 60_000);

  afterAll(async () => {
    await dashboard?.close();
    await payout?.close();
    await stack?.close();
  });

  const tokenCount = async (vendorId: string) => Number((await stack.db.query(`SELECT count(*)::int AS n FROM api_tokens WHERE vendor_id = $1`, [vendorId]))[0].n);

  it('refuses a dashboard session on the purchase and payout APIs (401), and accepts the same request with a bearer token', async () => {
    for (const [app, path] of [
      [stack.gateway, '/api/v1/transactions'],
      [stack.gateway, '/api/v1/limits'],
      [payout, '/api/v1/account'],
      [payout, '/api/v1/batches/any'],
    ] as const) {
      const withSession = await app.http().get(path).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf);
      expect({ path, status: withSession.status, body: withSession.body }).toMatchObject({ path, status: 401 });
      expect(JSON.stringify(withSession.body)).toContain('UNAUTHENTICATED');
    }
    expect((await stack.gateway.http().get('/api/v1/transactions').set(bearer(vendorA.token))).status).toBe(200);
  });

  it('refuses an API token on the dashboard: pages redirect to sign-in, actions answer 401 and change nothing', async () => {
    const page = await dashboard.http().get('/tokens').set(bearer(vendorA.token));
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/sign-in?next=%2Ftokens');
    const before = await tokenCount(vendorA.vendor.id);
    const action = await dashboard.http().post('/tokens').set(bearer(vendorA.token)).type('form').send({ name: 'x', abilities: 'catalogue:read', expires_in: '1d' });
    expect(action.status).toBe(401);
    expect(await tokenCount(vendorA.vendor.id)).toBe(before);
  });

  it('refuses a state-changing request without the CSRF token, or with another session’s', async () => {
    const before = await tokenCount(vendorA.vendor.id);
    const form = { name: 'csrf probe', abilities: 'catalogue:read', expires_in: '1d' };
    const missing = await dashboard.http().post('/tokens').set('Cookie', session.cookie).type('form').send(form);
    expect(missing.status).toBe(403);
    const other = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorA.vendor.id, 'developer'));
    const wrong = await dashboard.http().post('/tokens').set('Cookie', session.cookie).type('form').send({ ...form, _csrf: other.csrf });
    expect(wrong.status).toBe(403);
    expect(await tokenCount(vendorA.vendor.id)).toBe(before);
    const right = await dashboard.http().post('/tokens').set('Cookie', session.cookie).type('form').send({ ...form, _csrf: session.csrf });
    expect(right.status).toBe(303);
    expect(await tokenCount(vendorA.vendor.id)).toBe(before + 1);
  });

  it("answers 404 for another vendor's token, purchase and team member, and leaves them untouched", async () => {
    const bought = await purchase(stack, vendorB, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234500') });
    await settle(stack, vendorB, bought.transaction.id, ['completed']);
    const otherOwner = await createDashboardUser(dashboard.app, vendorB.vendor.id, 'owner');

    expect((await dashboard.http().get(`/purchases/${bought.transaction.id}`).set('Cookie', session.cookie)).status).toBe(404);
    const list = await dashboard.http().get(`/purchases?reference=${bought.reference}`).set('Cookie', session.cookie);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(bought.transaction.id);

    expect((await dashboard.http().get(`/tokens/${vendorB.tokenId}/revoke`).set('Cookie', session.cookie)).status).toBe(404);
    const revoke = await dashboard.http().post(`/tokens/${vendorB.tokenId}/revoke`).set('Cookie', session.cookie).type('form').send({ _csrf: session.csrf });
    expect(revoke.status).toBe(404);
    const [token] = await stack.db.query(`SELECT revoked_at FROM api_tokens WHERE id = $1`, [vendorB.tokenId]);
    expect(token.revoked_at).toBeNull();
    expect((await stack.gateway.http().get('/api/v1/transactions').set(bearer(vendorB.token))).status).toBe(200);

    for (const [method, path, body] of [
      ['get', `/team/${otherOwner.id}/remove`, {}],
      ['post', `/team/${otherOwner.id}/remove`, { _csrf: session.csrf }],
      ['post', `/team/${otherOwner.id}/role`, { _csrf: session.csrf, role: 'viewer' }],
    ] as const) {
      const response = method === 'get' ? await dashboard.http().get(path).set('Cookie', session.cookie) : await dashboard.http().post(path).set('Cookie', session.cookie).type('form').send(body);
      expect(response.status).toBe(404);
    }
    const [user] = await stack.db.query(`SELECT role, removed_at FROM dashboard_users WHERE id = $1`, [otherOwner.id]);
    expect(user).toEqual({ role: 'owner', removed_at: null });
    expect((await dashboard.http().get(`/purchases/${randomUUID()}`).set('Cookie', session.cookie)).status).toBe(404);
    expect((await dashboard.http().get(`/purchases/not-a-uuid`).set('Cookie', session.cookie)).status).toBe(404);
  });

  it('filters purchases by status, reference and Johannesburg days, and refuses malformed filters', async () => {
    const bought = await purchase(stack, vendorA, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234500') });
    await settle(stack, vendorA, bought.transaction.id, ['completed']);
    const { johannesburgDayOf } = await import('#common');
    const today = johannesburgDayOf(new Date());
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const list = (query: string) => dashboard.http().get(`/purchases?${query}`).set('Cookie', session.cookie);
    const shows = async (query: string) => (await list(query)).text.includes(bought.reference);
    expect(await shows(`reference=${bought.reference}`)).toBe(true);
    expect(await shows(`status=completed&from=${today}&to=${today}`)).toBe(true);
    expect(await shows(`status=failed`)).toBe(false);
    expect(await shows(`from=${tomorrow}`)).toBe(false);
    expect(await shows(`to=${today}&from=${today}&page=2`)).toBe(false);
    for (const bad of ['from=2026-02-30', 'status=lost', 'reference=%3Cscript%3E', `from=${tomorrow}&to=${today}`]) {
      expect({ bad, status: (await list(bad)).status }).toEqual({ bad, status: 400 });
    }
  });

  it('enforces the role matrix on the server for every page and action', async () => {
    const roles = ['owner', 'developer', 'finance', 'viewer'] as const;
    const sessions = Object.fromEntries(
      await Promise.all(roles.map(async (role) => [role, await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorA.vendor.id, role))] as const)),
    ) as Record<(typeof roles)[number], SignedIn>;
    // Allowed roles per action; every other role must get 403.
    const matrix: { name: string; allowed: readonly string[]; run: (s: SignedIn) => Promise<{ status: number }> }[] = [
      { name: 'view purchases', allowed: roles, run: (s) => dashboard.http().get('/purchases').set('Cookie', s.cookie) },
      { name: 'view tokens', allowed: ['owner', 'developer'], run: (s) => dashboard.http().get('/tokens').set('Cookie', s.cookie) },
      {
        name: 'create token',
        allowed: ['owner', 'developer'],
        run: (s) => dashboard.http().post('/tokens').set('Cookie', s.cookie).type('form').send({ _csrf: s.csrf, name: 'matrix', abilities: 'catalogue:read', expires_in: '1d' }),
      },
      { name: 'view webhooks', allowed: ['owner', 'developer'], run: (s) => dashboard.http().get('/webhooks').set('Cookie', s.cookie) },
      {
        name: 'add webhook endpoint',
        allowed: ['owner', 'developer'],
        run: (s) => dashboard.http().post('/webhooks').set('Cookie', s.cookie).type('form').send({ _csrf: s.csrf, url: 'http://127.0.0.1:9/matrix', events: 'transaction.completed' }),
      },
      { name: 'view team', allowed: ['owner'], run: (s) => dashboard.http().get('/team').set('Cookie', s.cookie) },
      {
        name: 'invite',
        allowed: ['owner'],
        run: (s) => dashboard.http().post('/team/invite').set('Cookie', s.cookie).type('form').send({ _csrf: s.csrf, email: `invitee-${randomUUID()}@vendor.example`, role: 'viewer' }),
      },
      { name: 'view audit log', allowed: ['owner'], run: (s) => dashboard.http().get('/audit').set('Cookie', s.cookie) },
    ];
    for (const action of matrix) {
      for (const role of roles) {
        const tokensBefore = await tokenCount(vendorA.vendor.id);
        const { status } = await action.run(sessions[role]);
        const allowed = action.allowed.includes(role);
        expect({ action: action.name, role, allowedStatus: status < 400 }).toEqual({ action: action.name, role, allowedStatus: allowed });
        if (!allowed) {
          expect(status).toBe(403);
          expect(await tokenCount(vendorA.vendor.id)).toBe(tokensBefore);
        }
      }
    }
  });

  it('answers /metrics and /health/* only on its operational port, never on the port vendors reach', async () => {
    for (const path of ['/metrics', '/health/live', '/health/ready', '/metrics?x=1']) {
      const onAppPort = await dashboard.http().get(path);
      expect({ path, status: onAppPort.status, text: onAppPort.text }).toEqual({ path, status: 404, text: 'Not Found' });
    }
    expect((await dashboard.operationalHttp().get('/health/ready')).status).toBe(200);
    expect((await dashboard.operationalHttp().get('/metrics')).text).toContain('http_request_duration_seconds');
    expect((await dashboard.operationalHttp().get('/sign-in')).status).toBe(404);
  });

  it("keeps a token's abilities within what its creator's role may do on the dashboard; an owner may grant them", async () => {
    const developer = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorA.vendor.id, 'developer'));
    const create = (person: SignedIn, abilities: string[]) =>
      dashboard.http().post('/tokens').set('Cookie', person.cookie).type('form').send(new URLSearchParams([['_csrf', person.csrf], ['name', 'abilities probe'], ['expires_in', '1d'], ...abilities.map((ability): [string, string] => ['abilities', ability])]).toString());
    const page = await dashboard.http().get('/tokens').set('Cookie', developer.cookie);
    for (const ability of ['fulfilment:read', 'payouts:write', 'payouts:delivery']) {
      expect(page.text).toMatch(new RegExp(`value="${ability}" disabled aria-describedby="[^"]+"><label[^>]*>${ability}</label> <span[^>]*>\\(your role \\(developer\\) cannot use this on the dashboard`));
      const before = await tokenCount(vendorA.vendor.id);
      const refused = await create(developer, ['transactions:read', ability]);
      expect({ ability, status: refused.status }).toEqual({ ability, status: 400 });
      expect(refused.text).toContain(`Your role (developer) cannot create tokens with ${ability}`);
      expect(await tokenCount(vendorA.vendor.id)).toBe(before);
    }
    // The integration abilities stay the developer's to hand out.
    const integration = await create(developer, ['catalogue:read', 'quotes:write', 'transactions:write', 'transactions:read', 'payouts:read', 'webhooks:write']);
    expect(integration.status).toBe(303);
    const developerSecret = /id="token-secret">([^<]+)</.exec((await followRedirect(dashboard.http, developer, integration)).text)![1];
    const sendPayout = (secret: string) => payout.http().post('/api/v1/payouts').set(bearer(secret)).send({});
    expect((await sendPayout(developerSecret)).status).toBe(403);
    // The owner holds every permission, so the owner mints the tokens that send payouts or read PINs.
    const granted = await create(session, ['payouts:write', 'payouts:delivery', 'fulfilment:read']);
    expect(granted.status).toBe(303);
    const secret = /id="token-secret">([^<]+)</.exec((await followRedirect(dashboard.http, session, granted)).text)![1];
    // Past the ability check: the empty body is refused for what it is, not for the token.
    expect([400, 422]).toContain((await sendPayout(secret)).status);
    const rows = await stack.db.query(`SELECT abilities FROM api_tokens WHERE vendor_id = $1 AND name = 'abilities probe' ORDER BY created_at`, [vendorA.vendor.id]);
    expect(rows.map((row: { abilities: string[] }) => [...row.abilities].sort())).toEqual([
      ['catalogue:read', 'payouts:read', 'quotes:write', 'transactions:read', 'transactions:write', 'webhooks:write'],
      ['fulfilment:read', 'payouts:delivery', 'payouts:write'],
    ]);
  });

  it('shows a new token once on the page its POST redirects to; reloading neither shows it again nor makes a second token', async () => {
    const before = await tokenCount(vendorA.vendor.id);
    const created = await dashboard.http().post('/tokens').set('Cookie', session.cookie).type('form').send({ _csrf: session.csrf, name: 'reload probe', abilities: 'catalogue:read', expires_in: '1d' });
    expect(created).toMatchObject({ status: 303, headers: { location: '/tokens' } });
    const shown = await followRedirect(dashboard.http, session, created);
    expect(shown.text).toMatch(/id="token-secret">[^<]+</);
    // The browser's reload is a GET of /tokens; the notice cookie was cleared and the secret is not shown.
    expect(([] as string[]).concat(shown.headers['set-cookie'] ?? []).join(';')).toMatch(/dash_flash=;/);
    expect((await dashboard.http().get('/tokens').set('Cookie', session.cookie)).text).not.toContain('token-secret');
    // Another session cannot open the sealed notice.
    const other = await signIn(dashboard.http, owner);
    expect((await followRedirect(dashboard.http, other, created)).text).not.toContain('token-secret');
    expect(await tokenCount(vendorA.vendor.id)).toBe(before + 1);
  });

  it('reveals a PIN only on an explicit POST by an owner or finance user of the vendor, recording each read', async () => {
    const bought = await purchase(stack, vendorA, { product_id: PRODUCTS.pin, ...mobile('27821234500') });
    await settle(stack, vendorA, bought.transaction.id, ['completed']);
    const pin = (await stack.gateway.http().get(`/api/v1/transactions/${bought.transaction.id}/fulfilment`).set(bearer(vendorA.token))).body.data.pin.code as string;
    const reads = async () => (await stack.db.query(`SELECT token_id, dashboard_user_id FROM purchase_fulfilment_reads WHERE transaction_id = $1 ORDER BY id`, [bought.transaction.id])) as { token_id: string | null; dashboard_user_id: string | null }[];
    expect(await reads()).toHaveLength(1);
    const path = `/purchases/${bought.transaction.id}/fulfilment`;

    const detail = await dashboard.http().get(`/purchases/${bought.transaction.id}`).set('Cookie', session.cookie);
    expect(detail.text).toContain('Reveal PIN or eSIM details');
    expect(detail.text).not.toContain(pin);
    for (const role of ['viewer', 'developer'] as const) {
      const user = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorA.vendor.id, role));
      const refused = await dashboard.http().post(path).set('Cookie', user.cookie).type('form').send({ _csrf: user.csrf });
      expect({ role, status: refused.status }).toEqual({ role, status: 403 });
      expect(refused.text).not.toContain(pin);
    }
    const strangerOwner = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorB.vendor.id, 'owner'));
    expect((await dashboard.http().post(path).set('Cookie', strangerOwner.cookie).type('form').send({ _csrf: strangerOwner.csrf })).status).toBe(404);
    expect((await dashboard.http().post(path).set('Cookie', session.cookie).type('form').send({})).status).toBe(403);
    expect(await reads()).toHaveLength(1);

    const finance = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'finance');
    const financeSession = await signIn(dashboard.http, finance);
    const revealed = await dashboard.http().post(path).set('Cookie', financeSession.cookie).type('form').send({ _csrf: financeSession.csrf });
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain(pin);
    expect(revealed.headers['cache-control']).toBe('no-store');
    expect((await reads())[1]).toEqual({ token_id: null, dashboard_user_id: finance.id });
    const [event] = await stack.db.query(`SELECT actor, subject FROM dashboard_audit_events WHERE action = 'fulfilment.revealed' AND subject = $1`, [bought.transaction.id]);
    expect(event).toEqual({ actor: finance.email, subject: bought.transaction.id });
  });

  it("refuses batch uploads when the vendor's payouts:write switch is off, whatever the role", async () => {
    const switchedOff = await stack.vendor({ name: 'No payouts vendor' });
    await stack.gateway.app.get(VendorService).setAbilities(switchedOff.vendor.id, [], ['payouts:write']);
    const person = await signIn(dashboard.http, await createDashboardUser(dashboard.app, switchedOff.vendor.id, 'owner'));
    const csv = 'reference,amount,method,first_name,surname,phone,id_type,id_number,country_of_issue,nationality\nr-1,10.00,bank_a_instant_money,A,B,27821234555,RSAID,8001015009087,ZA,ZA';
    const submit = await dashboard.http().post('/batches').set('Cookie', person.cookie).type('form').send({ _csrf: person.csrf, csv });
    expect(submit.status).toBe(403);
    expect(submit.text).toContain('Payouts are not enabled');
    const preview = await dashboard.http().post('/batches/preview').set('Cookie', person.cookie).field('_csrf', person.csrf).attach('file', Buffer.from(csv), 'payouts.csv');
    expect(preview.status).toBe(403);
    expect(await stack.db.query(`SELECT 1 FROM payouts WHERE vendor_id = $1`, [switchedOff.vendor.id])).toHaveLength(0);
    // Without the CSRF field, the multipart form is refused before anything else.
    const noCsrf = await dashboard.http().post('/batches/preview').set('Cookie', session.cookie).attach('file', Buffer.from(csv), 'payouts.csv');
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.text).toContain('did not come from this dashboard');
  });

  it('sets the session cookie HttpOnly, Secure, SameSite=Lax with the __Host- prefix, and rotates it on every sign-in', async () => {
    const first = await signInRequest(dashboard.http, owner.email, owner.password);
    const line = ([] as string[]).concat(first.headers['set-cookie']).find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))!;
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; Secure/);
    expect(line).toMatch(/; SameSite=Lax/);
    expect(line).toMatch(/; Path=\//);
    expect(line).not.toMatch(/Domain=/i);
    const secret = cookieValue(first.headers['set-cookie'], SESSION_COOKIE)!;
    // Signing in again from the same browser ends the old session.
    const page = await dashboard.http().get('/sign-in');
    const pre = cookieValue(page.headers['set-cookie'], '__Host-dash_pre')!;
    const second = await dashboard
      .http()
      .post('/sign-in')
      .set('Cookie', `${SESSION_COOKIE}=${secret}; __Host-dash_pre=${pre}`)
      .type('form')
      .send({ email: owner.email, password: owner.password, _pre: /name="_pre" value="([^"]+)"/.exec(page.text)![1] });
    const rotated = cookieValue(second.headers['set-cookie'], SESSION_COOKIE)!;
    expect(rotated).not.toBe(secret);
    expect((await dashboard.http().get('/tokens').set('Cookie', `${SESSION_COOKIE}=${secret}`)).status).toBe(303);
    expect((await dashboard.http().get('/tokens').set('Cookie', `${SESSION_COOKIE}=${rotated}`)).status).toBe(200);
    // Only hashes are stored.
    const [stored] = await stack.db.query(`SELECT count(*)::int AS n FROM dashboard_sessions WHERE token_hash = $1 OR csrf_token = $1`, [rotated]);
    expect(stored.n).toBe(0);
  });

  it('ends sessions that were idle too long or reached their absolute expiry', async () => {
    const idle = await signIn(dashboard.http, owner);
    const absolute = await signIn(dashboard.http, owner);
    const hash = (cookie: string) => import('#web').then(({ secretHash }) => secretHash(cookie.split('=')[1]));
    await stack.db.query(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '31 minutes' WHERE token_hash = $1`, [await hash(idle.cookie)]);
    await stack.db.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [await hash(absolute.cookie)]);
    expect((await dashboard.http().get('/purchases').set('Cookie', idle.cookie)).status).toBe(303);
    expect((await dashboard.http().get('/purchases').set('Cookie', absolute.cookie)).status).toBe(303);
  });

  it('signs out everywhere: every session of the user ends, other users keep theirs', async () => {
    const person = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'viewer');
    const one = await signIn(dashboard.http, person);
    const two = await signIn(dashboard.http, person);
    const out = await dashboard.http().post('/sign-out-everywhere').set('Cookie', one.cookie).type('form').send({ _csrf: one.csrf });
    expect(out.status).toBe(303);
    expect((await dashboard.http().get('/purchases').set('Cookie', two.cookie)).status).toBe(303);
    expect((await dashboard.http().get('/purchases').set('Cookie', session.cookie)).status).toBe(200);
  });

  it('limits sign-in attempts per account with a clear message, even with the right password once limited', async () => {
    const person = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'viewer');
    for (let attempt = 0; attempt < 5; attempt++) expect((await signInRequest(dashboard.http, person.email, 'wrong password here')).status).toBe(401);
    const limited = await signInRequest(dashboard.http, person.email, person.password);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many sign-in attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(cookieValue(limited.headers['set-cookie'], SESSION_COOKIE)).toBeUndefined();
    // Another account is not locked by this one's failures.
    expect((await signInRequest(dashboard.http, owner.email, owner.password)).status).toBe(303);
  });

  /** A sign-in attempt through the form, from the address `forwardedFor` claims. */
  const attemptFrom = (app: RunningApp, forwardedFor: string, email: string, password: string) =>
    app.http().get('/sign-in').set('X-Forwarded-For', forwardedFor).then(async (page) => {
      const pre = cookieValue(page.headers['set-cookie'], '__Host-dash_pre')!;
      return app
        .http()
        .post('/sign-in')
        .set('X-Forwarded-For', forwardedFor)
        .set('Cookie', `__Host-dash_pre=${pre}`)
        .type('form')
        .send({ email, password, _pre: /name="_pre" value="([^"]+)"/.exec(page.text)![1] });
    });

  it('limits sign-in attempts per client address across accounts, behind one trusted proxy', async () => {
    // As behind the ingress (TRUSTED_PROXY_HOPS=1): the address is the one it appends to
    // X-Forwarded-For. Its own queue prefix, so this test's count starts at zero.
    const proxied = await startVendorDashboard({ config: { TRUSTED_PROXY_HOPS: '1', QUEUE_PREFIX: `{xff-${randomUUID()}}` } });
    try {
      const address = '203.0.113.77';
      for (let index = 0; index < SIGN_IN_LIMITS.perAddress; index++) expect((await attemptFrom(proxied, address, `nobody-${index}@vendor.example`, 'not a password')).status).toBe(401);
      expect((await attemptFrom(proxied, address, owner.email, owner.password)).status).toBe(429);
      // Another client behind the same ingress is not limited by this one.
      expect((await attemptFrom(proxied, '203.0.113.78', owner.email, owner.password)).status).toBe(303);
    } finally {
      await proxied.close();
    }
  });

  it('counts a directly connected client by its socket address, whatever X-Forwarded-For it sends', async () => {
    // Reached without a proxy (TRUSTED_PROXY_HOPS=0, the default), a new X-Forwarded-For per
    // attempt must not buy a new count: every attempt is the socket's (127.0.0.1).
    const direct = await startVendorDashboard({ config: { QUEUE_PREFIX: `{xff-${randomUUID()}}` } });
    try {
      for (let index = 0; index < SIGN_IN_LIMITS.perAddress; index++) {
        expect((await attemptFrom(direct, `198.51.100.${index % 250}`, `nobody-${index}@vendor.example`, 'not a password')).status).toBe(401);
      }
      expect((await attemptFrom(direct, '198.51.100.251', owner.email, owner.password)).status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it("withdraws a pending invite so its link stops working; another vendor's owner cannot", async () => {
    const invited = await dashboard.http().post('/team/invite').set('Cookie', session.cookie).type('form').send({ _csrf: session.csrf, email: `withdrawn-${randomUUID()}@vendor.example`, role: 'finance' });
    const link = new URL(/id="invite-link">([^<]+)</.exec((await followRedirect(dashboard.http, session, invited)).text)![1]);
    const path = `${link.pathname}${link.search}`;
    expect((await dashboard.http().get(path)).status).toBe(200);
    const inviteId = /action="\/team\/invites\/([0-9a-f-]{36})\/withdraw"/.exec((await dashboard.http().get('/team').set('Cookie', session.cookie)).text)![1];
    const stranger = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorB.vendor.id, 'owner'));
    expect((await dashboard.http().post(`/team/invites/${inviteId}/withdraw`).set('Cookie', stranger.cookie).type('form').send({ _csrf: stranger.csrf })).status).toBe(404);
    expect((await dashboard.http().get(path)).status).toBe(200);
    expect((await dashboard.http().post(`/team/invites/${inviteId}/withdraw`).set('Cookie', session.cookie).type('form').send({ _csrf: session.csrf })).status).toBe(303);
    expect((await dashboard.http().get(path)).status).toBe(404);
  });

  it('refuses every sign-in while Redis cannot count attempts (fails closed), and signs in again once it can', async () => {
    const redisUrl = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const proxy = await FaultProxy.forUrl(redisUrl);
    const cut = await startVendorDashboard({ config: { REDIS_URL: proxy.proxied(redisUrl) } });
    try {
      expect((await signInRequest(cut.http, owner.email, owner.password)).status).toBe(303);
      proxy.setMode('refuse');
      proxy.cutAll();
      const refused = await signInRequest(cut.http, owner.email, owner.password);
      expect(refused.status).toBe(503);
      expect(refused.text).toContain('Sign-in is temporarily unavailable');
      expect(cookieValue(refused.headers['set-cookie'], SESSION_COOKIE)).toBeUndefined();
      proxy.setMode('pass');
      await eventually(async () => (await signInRequest(cut.http, owner.email, owner.password)).status, (status) => status === 303, 15_000, 250);
    } finally {
      await cut.close();
      await proxy.close();
    }
  });

  it('turns on two-step sign-in after a matching code, stores the secret sealed, and then requires a code to sign in', async () => {
    const person = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'viewer');
    const signedIn = await signIn(dashboard.http, person);
    const started = await dashboard.http().post('/account/totp').set('Cookie', signedIn.cookie).type('form').send({ _csrf: signedIn.csrf });
    const secret = /id="totp-key">([A-Z2-7]+)</.exec(started.text)![1];
    const enrolment = /name="enrolment" value="([^"]+)"/.exec(started.text)![1];
    const confirm = (fields: Record<string, string>) => dashboard.http().post('/account/totp/confirm').set('Cookie', signedIn.cookie).type('form').send({ _csrf: signedIn.csrf, ...fields });
    const wrong = await confirm({ enrolment, password: person.password, code: '000000' === (await generate({ secret })) ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    // The right code without the password (a borrowed session) does not turn it on either.
    expect((await confirm({ enrolment, password: 'not the password', code: await generate({ secret }) })).status).toBe(400);
    expect((await stack.db.query(`SELECT totp_secret_ciphertext FROM dashboard_users WHERE id = $1`, [person.id]))[0].totp_secret_ciphertext).toBeNull();
    const confirmed = await confirm({ enrolment, password: person.password, code: await generate({ secret }) });
    expect(confirmed.status).toBe(200);
    const [{ totp_secret_ciphertext: sealed }] = await stack.db.query(`SELECT totp_secret_ciphertext FROM dashboard_users WHERE id = $1`, [person.id]);
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(secret);

    const withoutCode = await signInRequest(dashboard.http, person.email, person.password);
    expect(withoutCode.status).toBe(401);
    expect(withoutCode.text).toContain('6-digit code');
    expect(cookieValue(withoutCode.headers['set-cookie'], SESSION_COOKIE)).toBeUndefined();
    // The code that turned it on was recorded: it does not sign in (wait for the next step instead of replaying it).
    const code = await generate({ secret });
    const stepNow = Math.floor(Date.now() / 30_000);
    const [{ totp_last_step: recorded }] = await stack.db.query(`SELECT totp_last_step::int FROM dashboard_users WHERE id = $1`, [person.id]);
    if (recorded === stepNow) {
      expect((await signInRequest(dashboard.http, person.email, person.password, { totp: code })).status).toBe(401);
      await stack.db.query(`UPDATE dashboard_users SET totp_last_step = totp_last_step - 1 WHERE id = $1`, [person.id]);
    }
    expect((await signInRequest(dashboard.http, person.email, person.password, { totp: code })).status).toBe(303);
    // The same code again: refused, once used.
    const replayed = await signInRequest(dashboard.http, person.email, person.password, { totp: code });
    expect(replayed.status).toBe(401);
    expect(cookieValue(replayed.headers['set-cookie'], SESSION_COOKIE)).toBeUndefined();
  });

  it('enrols only a key the server made: a key the browser chose (all zeros) or a forged enrolment is refused', async () => {
    const person = await createDashboardUser(dashboard.app, vendorA.vendor.id, 'viewer');
    const signedIn = await signIn(dashboard.http, person);
    const zeros = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'; // the all-zero key, base32
    const confirm = (fields: Record<string, string>) => dashboard.http().post('/account/totp/confirm').set('Cookie', signedIn.cookie).type('form').send({ _csrf: signedIn.csrf, password: person.password, ...fields });
    // The old form's field, a forged enrolment, and another person's genuine one.
    expect((await confirm({ secret: zeros, code: await generate({ secret: zeros }) })).status).toBe(400);
    expect((await confirm({ enrolment: `v1:${zeros}`, code: await generate({ secret: zeros }) })).status).toBe(400);
    const other = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendorA.vendor.id, 'viewer'));
    const othersPage = await dashboard.http().post('/account/totp').set('Cookie', other.cookie).type('form').send({ _csrf: other.csrf });
    const othersSecret = /id="totp-key">([A-Z2-7]+)</.exec(othersPage.text)![1];
    const othersEnrolment = /name="enrolment" value="([^"]+)"/.exec(othersPage.text)![1];
    expect((await confirm({ enrolment: othersEnrolment, code: await generate({ secret: othersSecret }) })).status).toBe(400);
    expect((await stack.db.query(`SELECT totp_secret_ciphertext FROM dashboard_users WHERE id = $1`, [person.id]))[0].totp_secret_ciphertext).toBeNull();
  });

  it('records token actions in the audit log, which the database keeps append-only', async () => {
    const events = await stack.db.query(`SELECT action FROM dashboard_audit_events WHERE vendor_id = $1 AND action = 'token.created'`, [vendorA.vendor.id]);
    expect(events.length).toBeGreaterThan(0);
    await expect(stack.db.query(`DELETE FROM dashboard_audit_events WHERE vendor_id = $1`, [vendorA.vendor.id])).rejects.toThrow(/append-only/);
    await expect(stack.db.query(`UPDATE dashboard_audit_events SET actor = 'x' WHERE vendor_id = $1`, [vendorA.vendor.id])).rejects.toThrow(/append-only/);
  });
});
