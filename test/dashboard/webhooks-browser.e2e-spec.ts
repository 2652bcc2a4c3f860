import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { VendorService } from '#auth';
import { verifySignature } from '#webhooks';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, signIn, type DashboardPerson, type SignedIn } from '../support/dashboard.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';
import { cashPayout } from '../payout/payout-requests.js';
import { FAST_WEBHOOKS, startReceiver, type Receipt, type WebhookReceiver } from '../webhooks/webhook-receiver.js';
import { checkAtBothWidths, openBrowser, type Browser } from './browser.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const JOHANNESBURG_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} SAST/;

/**
 * The Webhooks pages in Chromium, as a developer (the role that manages the integration): an
 * endpoint created with its secret shown once, a real delivery from the payout gateway's worker to
 * a receiver on this machine, seen in the delivery log, redelivered (a second attempt arrives),
 * the secret rotated (the new one signs, the old one no longer), the endpoint disabled (no
 * delivery) and enabled again, each change in the audit log. Another vendor's endpoints answer
 * 404 and stay untouched; finance and viewers are refused. Every page at 1280 and 390 px: no
 * sideways scroll, axe-core clean.
 */
describe('dashboard webhooks in Chromium', () => {
  let stack: PayoutStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: PayoutTestVendor;
  let other: PayoutTestVendor;
  let developer: DashboardPerson;
  let receiver: WebhookReceiver;
  let otherEndpointId: string;
  let otherEventId: string;
  let browser: Browser;
  let page: Page;
  let endpointId = '';

  beforeAll(async () => {
    stack = await startPayoutStack({ config: FAST_WEBHOOKS });
    dashboard = await startVendorDashboard({ config: { DASHBOARD_PUBLIC_URL: 'http://localhost:3200', ...FAST_WEBHOOKS }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    receiver = await startReceiver();
    vendor = await stack.vendor({ name: 'Webhook Vendor' });
    other = await stack.vendor({ name: 'Someone else' });
    // The other vendor's endpoint, registered through the API, with one delivery in its log.
    const registered = await stack.gateway.http().post('/api/v1/webhook-endpoints').set(bearer(other.token)).send({ url: `${receiver.url}/other`, events: ['payout.paid'] }).expect(201);
    otherEndpointId = registered.body.data.id;
    const otherPayout = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(other.token)).send(cashPayout('55')).expect(200)).body.data;
    otherEventId = (await find((receipt) => receipt.event.data.id === otherPayout.id)).event.id;
    developer = await createDashboardUser(dashboard.app, vendor.vendor.id, 'developer');
    browser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    // This file's delivery jobs die with it: later stacks (other test files) must not relay them to a closed receiver.
    await stack?.dataSource.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
    await browser?.close();
    await receiver?.close();
    await dashboard?.close();
    await stack?.close();
  });

  const find = (predicate: (receipt: Receipt) => boolean) =>
    eventually(async () => {
      const found = receiver.receipts.find(predicate);
      if (!found) throw new Error('not received yet');
      return found;
    });
  const sql = <T>(text: string, values: unknown[]) => stack.dataSource.query(text, values) as Promise<T[]>;
  const payout = async () => (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200)).body.data as { id: string };
  const auditActions = async () => (await sql<{ action: string }>(`SELECT action FROM dashboard_audit_events WHERE vendor_id = $1 AND action LIKE 'webhook.%' ORDER BY id`, [vendor.vendor.id])).map((row) => row.action);

  /** No sideways scroll and no serious axe-core violation at 390 and 1280 px; screenshots at both. */
  async function audit(name: string): Promise<void> {
    await checkAtBothWidths(page, name, async (width) => {
      if (!SCREENSHOTS) return;
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true, mask: [page.locator('.secret')] });
    });
  }

  /** Clicks a form's button and waits for the page it leads to, even when that is the same URL. */
  async function submit(selector: string): Promise<void> {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  }

  /** The endpoint's page, reloaded until the log rows of `eventId` (their cells' text) satisfy `done`. */
  async function logRows(eventId: string, done: (rows: string[][]) => boolean): Promise<string[][]> {
    return eventually(async () => {
      await page.goto(`${base}/webhooks/payout/${endpointId}`);
      const rows = await page
        .locator(`tr[data-event="${eventId}"]`)
        .evaluateAll((trs) => trs.map((tr) => Array.from((tr as unknown as { cells: ArrayLike<{ innerText: string }> }).cells, (cell) => cell.innerText.trim())));
      if (!done(rows)) throw new Error(`log not there yet: ${JSON.stringify(rows)}`);
      return rows;
    }, 30_000, 250);
  }

  it('creates an endpoint and shows its secret once, delivers a real event, logs it, redelivers it, rotates the secret, disables and enables it', async () => {
    await page.goto(`${base}/webhooks`);
    await page.fill('#email', developer.email);
    await page.fill('#password', developer.password);
    await Promise.all([page.waitForURL(`${base}/webhooks`), page.press('#password', 'Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Webhooks');
    await expect(page.locator('nav a[href="/webhooks"]').getAttribute('aria-current')).resolves.toBe('page');
    await expect(page.locator('body').textContent()).resolves.not.toContain('/hooks/other');
    await audit('webhooks-empty');

    // A URL the shared guard refuses, and events of both gateways: refused with the reasons, nothing written.
    await page.fill('#webhook-url', 'ftp://example.com/hooks');
    await page.check('#event-payout-paid');
    await page.check('#event-transaction-completed');
    await submit('button:has-text("Add endpoint")');
    await expect(page.locator('#form-errors').textContent()).resolves.toContain('Choose the events of one gateway');
    await page.uncheck('#event-transaction-completed');
    await submit('button:has-text("Add endpoint")');
    await expect(page.locator('#form-errors').textContent()).resolves.toMatch(/url/);
    expect(await sql(`SELECT 1 FROM webhook_endpoints WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(0);

    await page.fill('#webhook-url', receiver.url);
    await page.fill('#webhook-description', 'Order system');
    await Promise.all([page.waitForURL(new RegExp(`/webhooks/payout/${UUID}$`)), page.click('button:has-text("Add endpoint")')]);
    endpointId = page.url().split('/').at(-1)!;
    const secret = (await page.locator('#webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const [stored] = await sql<{ gateway: string; url: string; events: string[]; enabled: boolean; secret_encrypted: string }>(
      `SELECT gateway, url, events, enabled, secret_encrypted FROM webhook_endpoints WHERE id = $1 AND vendor_id = $2`,
      [endpointId, vendor.vendor.id],
    );
    expect(stored).toMatchObject({ gateway: 'payout', url: receiver.url, events: ['payout.paid'], enabled: true });
    expect(stored.secret_encrypted).not.toContain(secret.slice(6));
    await audit('webhook-created');
    // Shown once: a reload shows the endpoint without its secret.
    await page.reload();
    await expect(page.locator('#webhook-secret').count()).resolves.toBe(0);
    await expect(page.locator('body').textContent()).resolves.not.toContain(secret);

    // A real event: the payout gateway's worker delivers payout.paid, signed with the secret.
    const first = await payout();
    const receipt = await find((item) => item.event.data.id === first.id);
    expect(verifySignature(String(receipt.headers['gateway-signature']), receipt.body, secret)).toBe(true);
    const eventId = receipt.event.id;
    const [delivered] = await logRows(eventId, (rows) => rows.length === 1 && rows[0][3] === 'delivered');
    // Created, event, event id, status, attempts, last response, next attempt, delivered, action.
    expect(delivered.slice(1, 7)).toEqual(['payout.paid', eventId, 'delivered', '1', '200', '—']);
    expect(delivered[0]).toMatch(JOHANNESBURG_TIME);
    expect(delivered[7]).toMatch(JOHANNESBURG_TIME);

    // Redelivered: a second entry in the log and a second POST of the same event to the receiver.
    await submit(`tr[data-event="${eventId}"] button:has-text("Redeliver")`);
    expect(page.url()).toBe(`${base}/webhooks/payout/${endpointId}`);
    await eventually(async () => expect(receiver.receipts.filter((item) => item.event.id === eventId)).toHaveLength(2));
    const [original, again] = receiver.receipts.filter((item) => item.event.id === eventId);
    expect(again.body).toBe(original.body);
    expect(again.headers['gateway-delivery-id']).not.toBe(original.headers['gateway-delivery-id']);
    const rows = await logRows(eventId, (items) => items.length === 2 && items.every((row) => row[3] === 'delivered'));
    expect(rows[0][1]).toMatch(/^payout\.paid\s+redelivery$/);
    expect(rows[1][1]).toBe('payout.paid');
    await audit('webhook-endpoint');

    // Rotated without an overlap: the new secret signs the next event, the old one no longer does.
    await page.click('a:has-text("Rotate the signing secret")');
    await audit('webhook-rotate');
    await page.check('#overlap-none');
    await Promise.all([page.waitForURL(`${base}/webhooks/payout/${endpointId}`), page.click('button:has-text("Rotate the secret")')]);
    const rotated = (await page.locator('#webhook-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    const second = await payout();
    const signedAnew = await find((item) => item.event.data.id === second.id);
    expect(verifySignature(String(signedAnew.headers['gateway-signature']), signedAnew.body, rotated)).toBe(true);
    expect(verifySignature(String(signedAnew.headers['gateway-signature']), signedAnew.body, secret)).toBe(false);

    // Disabled, with a reason: the next event is recorded but nothing is delivered to the endpoint.
    await page.click('a:has-text("Disable this endpoint")');
    await page.fill('#switch-reason', 'Receiver moves to a new host');
    await audit('webhook-disable');
    await Promise.all([page.waitForURL(`${base}/webhooks/payout/${endpointId}`), page.click('button:has-text("Disable the endpoint")')]);
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe('disabled');
    const third = await payout();
    await eventually(async () => expect(await sql(`SELECT 1 FROM webhook_events WHERE resource_id = $1 AND type = 'payout.paid'`, [third.id])).toHaveLength(1));
    expect(await sql(`SELECT 1 FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.resource_id = $1`, [third.id])).toHaveLength(0);
    expect(receiver.receipts.filter((item) => item.event.data.id === third.id)).toHaveLength(0);

    await page.click('a:has-text("Enable this endpoint")');
    await page.fill('#switch-reason', 'Receiver is back');
    await Promise.all([page.waitForURL(`${base}/webhooks/payout/${endpointId}`), page.click('button:has-text("Enable the endpoint")')]);
    await expect(page.locator('#endpoint-status').textContent()).resolves.toBe('enabled');

    await page.goto(`${base}/webhooks`);
    await expect(page.locator(`tr[data-endpoint="${endpointId}"]`).textContent()).resolves.toContain('Order system');
    await audit('webhooks');
    expect(await auditActions()).toEqual(['webhook.created', 'webhook.redelivered', 'webhook.secret_rotated', 'webhook.disabled', 'webhook.enabled']);
    const [disabled] = await sql<{ details: Record<string, unknown>; actor: string }>(`SELECT details, actor FROM dashboard_audit_events WHERE vendor_id = $1 AND action = 'webhook.disabled'`, [vendor.vendor.id]);
    expect(disabled).toEqual({ actor: developer.email, details: { gateway: 'payout', url: receiver.url, reason: 'Receiver moves to a new host' } });
    const details = JSON.stringify(await sql(`SELECT details FROM dashboard_audit_events WHERE vendor_id = $1`, [vendor.vendor.id]));
    expect(details).not.toContain(secret);
    expect(details).not.toContain(rotated);
  }, 120_000);

  it("answers 404 for another vendor's endpoint and event, and changes nothing of it", async () => {
    const session = await signIn(dashboard.http, developer);
    const authed = (request: ReturnType<ReturnType<RunningApp['http']>['get']>) => request.set('Cookie', session.cookie);
    const form = (path: string, fields: Record<string, string> = {}) => authed(dashboard.http().post(path)).type('form').send({ _csrf: session.csrf, ...fields });

    // The log's pages: past the last one, the page says so and links the last.
    const past = await authed(dashboard.http().get(`/webhooks/payout/${endpointId}?page=2`)).expect(200);
    expect(past.text).toContain('There is no page 2: the last page is 1.');
    expect(past.text).toContain(`href="/webhooks/payout/${endpointId}?page=1"`);

    const list = await authed(dashboard.http().get('/webhooks')).expect(200);
    expect(list.text).not.toContain(otherEndpointId);
    expect(list.text).not.toContain('/hooks/other');
    await authed(dashboard.http().get(`/webhooks/payout/${otherEndpointId}`)).expect(404);
    await authed(dashboard.http().get(`/webhooks/payout/${otherEndpointId}/rotate`)).expect(404);
    await authed(dashboard.http().get(`/webhooks/payout/${otherEndpointId}/disable`)).expect(404);
    await form(`/webhooks/payout/${otherEndpointId}/rotate`).expect(404);
    await form(`/webhooks/payout/${otherEndpointId}/disable`, { reason: 'not mine' }).expect(404);
    await form(`/webhooks/payout/${otherEndpointId}/events/${otherEventId}/redeliver`).expect(404);
    // The other vendor's event through one's own endpoint is not found either; so is a gateway the endpoint is not on.
    await form(`/webhooks/payout/${endpointId}/events/${otherEventId}/redeliver`).expect(404);
    await authed(dashboard.http().get(`/webhooks/purchase/${endpointId}`)).expect(404);
    await authed(dashboard.http().get(`/webhooks/nowhere/${endpointId}`)).expect(404);

    const [untouched] = await sql<{ enabled: boolean; rotated: Date | null }>(`SELECT enabled, previous_secret_expires_at AS rotated FROM webhook_endpoints WHERE id = $1`, [otherEndpointId]);
    expect(untouched).toEqual({ enabled: true, rotated: null });
    expect(await sql(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1`, [otherEndpointId])).toHaveLength(1);
    expect(await sql(`SELECT 1 FROM dashboard_audit_events WHERE subject = $1`, [otherEndpointId])).toHaveLength(0);
    // A reason is required on the server too, whatever the form's `required` says.
    const blank = await form(`/webhooks/payout/${endpointId}/disable`, { reason: '  ' }).expect(400);
    expect(blank.text).toContain('Say why');
    expect((await sql<{ enabled: boolean }>(`SELECT enabled FROM webhook_endpoints WHERE id = $1`, [endpointId]))[0].enabled).toBe(true);
  });

  it('refuses finance and viewers every webhook page and action (403), shows them no link, and changes nothing', async () => {
    const sessions: SignedIn[] = [];
    for (const role of ['finance', 'viewer'] as const) sessions.push(await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendor.vendor.id, role)));
    for (const session of sessions) {
      const authed = (request: ReturnType<ReturnType<RunningApp['http']>['get']>) => request.set('Cookie', session.cookie);
      const home = await authed(dashboard.http().get('/purchases')).expect(200);
      expect(home.text).not.toContain('href="/webhooks"');
      await authed(dashboard.http().get('/webhooks')).expect(403);
      await authed(dashboard.http().get(`/webhooks/payout/${endpointId}`)).expect(403);
      await authed(dashboard.http().post('/webhooks')).type('form').send({ _csrf: session.csrf, url: receiver.url, events: 'payout.paid' }).expect(403);
      await authed(dashboard.http().post(`/webhooks/payout/${endpointId}/rotate`)).type('form').send({ _csrf: session.csrf }).expect(403);
      await authed(dashboard.http().post(`/webhooks/payout/${endpointId}/disable`)).type('form').send({ _csrf: session.csrf, reason: 'no' }).expect(403);
    }
    expect(await sql(`SELECT 1 FROM webhook_endpoints WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(1);
    expect((await sql<{ enabled: boolean }>(`SELECT enabled FROM webhook_endpoints WHERE id = $1`, [endpointId]))[0].enabled).toBe(true);

    // An owner may; the vendor-level switch still applies to every role: staff who turn off webhooks:write turn off the changes here.
    const owner = await signIn(dashboard.http, await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner'));
    await dashboard.http().get('/webhooks').set('Cookie', owner.cookie).expect(200);
    await stack.gateway.app.get(VendorService).setAbilities(vendor.vendor.id, [], ['webhooks:write']);
    const refused = await dashboard.http().post(`/webhooks/payout/${endpointId}/rotate`).set('Cookie', owner.cookie).type('form').send({ _csrf: owner.csrf }).expect(403);
    expect(refused.text).toContain('not enabled for your account');
    expect((await dashboard.http().get('/webhooks').set('Cookie', owner.cookie).expect(200)).text).not.toContain('Add endpoint');
    await stack.gateway.app.get(VendorService).setAbilities(vendor.vendor.id, ['webhooks:write'], []);
  });
});
