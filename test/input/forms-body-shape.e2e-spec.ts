import { startBackOffice, startVendorDashboard, type RunningApp } from '../support/apps.js';

/**
 * Issue 29: the vendor dashboard and the back office parse JSON bodies too (next to their HTML
 * forms), so the same depth limit and reserved-key rule hold there: a refused body is their
 * validation page (400), never a 500.
 */
describe('dashboard and back-office JSON body shape', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => Promise.all(apps.map((app) => app.close())));

  const deep = `{"email":${'['.repeat(3000)}${']'.repeat(3000)},"password":"x"}`;

  it.each([
    ['vendor dashboard', startVendorDashboard],
    ['back office', startBackOffice],
  ])('%s: POST /sign-in with JSON nested 3,000 deep or a __proto__ key answers 400, not 500', async (_label, start) => {
    const app = await start();
    apps.push(app);
    const nested = await app.http().post('/sign-in').set('Content-Type', 'application/json').send(deep);
    // The back office shows the field messages; the dashboard its generic validation message.
    expect(nested.status).toBe(400);
    expect(nested.text).toContain('Request refused');
    const reserved = await app.http().post('/sign-in').set('Content-Type', 'application/json').send('{"__proto__":{"polluted":1},"email":"a@b.c","password":"x"}');
    expect(reserved.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
