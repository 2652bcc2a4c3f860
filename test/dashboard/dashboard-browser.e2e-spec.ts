import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, signIn, type DashboardPerson } from '../support/dashboard.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { rsaIdNumber, uniqueReference } from '../payout/payout-requests.js';
import { openBrowser, seriousViolations, type AxeViolation, type Browser } from './browser.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/**
 * A vendor's owner in real Chromium against the running dashboard, gateways, worker and
 * provider sandbox: sign in by keyboard, create a token, buy with it through the purchase
 * gateway, find the purchase, revoke the token (the gateway then answers 401), upload a CSV
 * batch with one bad row (refused, nothing reserved or submitted), fix it and watch every item
 * get paid, upload the same file again (nothing more paid). axe-core checks every page.
 */
describe('vendor dashboard in Chromium', () => {
  let stack: ReliabilityStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let owner: DashboardPerson;
  let browser: Browser;
  let page: Page;
  const accessibility: Record<string, AxeViolation[]> = {};

  /** axe-core on the page as it is now; violations are gathered and asserted at the end and per step. */
  async function audit(name: string): Promise<void> {
    accessibility[name] = await seriousViolations(page);
    expect({ page: name, violations: accessibility[name] }).toEqual({ page: name, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true, mask: [page.locator('.secret')] });
    }
  }

  beforeAll(async () => {
    stack = await startReliabilityStack();
    // Served on "localhost": Chromium treats it as a secure context, so the Secure __Host- cookies work over plain HTTP.
    dashboard = await startVendorDashboard({ config: { ...stack.env, DASHBOARD_PUBLIC_URL: 'http://localhost:3200' }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: 'Browser Vendor' });
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 1_000_000n, 'browser test funding');
    owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner');
    browser = await openBrowser();
    page = browser.page;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    if (stack) await closeCheckingBooks(stack, () => [vendor.vendor.id]);
  });

  let tokenSecret: string;
  let purchaseReference: string;

  it('signs in with the keyboard alone and returns to the page first asked for', async () => {
    await page.goto(`${base}/tokens`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await audit('sign-in');
    await page.keyboard.press('Tab'); // skip link
    await page.keyboard.press('Tab'); // email
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.password);
    await Promise.all([page.waitForURL(`${base}/tokens`), page.keyboard.press('Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('API tokens');
    const cookies = await browser.context.cookies(base);
    const session = cookies.find((cookie) => cookie.name === '__Host-dash_session')!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
  });

  it('creates a token whose secret is shown once, and buys with it through the purchase gateway', async () => {
    await page.fill('#token-name', 'Till 1');
    for (const ability of ['quotes:write', 'transactions:write', 'transactions:read']) await page.check(`input[name="abilities"][value="${ability}"]`);
    await page.selectOption('#expires-in', '7d');
    await page.click('button:has-text("Create token")');
    tokenSecret = (await page.locator('#token-secret').textContent())!.trim();
    expect(tokenSecret).toMatch(/^gwt_/);
    await audit('tokens-created');
    await page.goto(`${base}/tokens`);
    expect(await page.content()).not.toContain(tokenSecret);
    const [row] = await stack.sql<{ name: string; abilities: string[]; created_by_user_id: string }>(
      `SELECT name, abilities, created_by_user_id FROM api_tokens WHERE vendor_id = $1 AND name = 'Till 1'`,
      [vendor.vendor.id],
    );
    expect(row).toEqual({ name: 'Till 1', abilities: ['quotes:write', 'transactions:write', 'transactions:read'], created_by_user_id: owner.id });

    const quote = await createQuote(stack.purchase.url, tokenSecret, airtimeQuote('55'));
    purchaseReference = uniqueKey('browser');
    const bought = await buy(stack.purchase.url, tokenSecret, quote.id, uniqueKey('key'), purchaseReference);
    expect(bought.status).toBe(202);
    const id = dataOf(bought).id as string;
    await eventually(
      async () => dataOf(await call(stack.purchase.url, { path: `/api/v1/transactions/${id}`, token: tokenSecret })).status as string,
      (status) => status === 'completed',
      20_000,
      200,
    );
    expect(await stack.witness('external_id', id)).toMatchObject({ count: 1 });
    // The token's use shows on the tokens page.
    await page.reload();
    expect(await page.locator('tr', { hasText: 'Till 1' }).locator('td').nth(5).textContent()).not.toBe('—');
  });

  it('shows the purchase in the list, filtered by reference, and its detail with history', async () => {
    await page.goto(`${base}/purchases`);
    await page.fill('#reference', purchaseReference);
    await page.click('button:has-text("Filter")');
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await audit('purchases');
    await page.click(`a:has-text("${purchaseReference}")`);
    await expect(page.locator('dd.status-completed').textContent()).resolves.toBe('completed');
    expect(await page.locator('table').textContent()).toContain('completed');
    await audit('purchase-detail');
  });

  it("shows today's spend against the daily cap and the period's sales with a chart", async () => {
    const [{ charge }] = await stack.sql<{ charge: string }>(`SELECT charge_cents::text AS charge FROM purchase_transactions WHERE reference = $1`, [purchaseReference]);
    const charged = `ZAR ${(Number(charge) / 100).toFixed(2)}`;
    await page.goto(`${base}/spend`);
    await expect(page.locator('#daily-use').getAttribute('value')).resolves.toBe(charge);
    expect(await page.locator('main').textContent()).toContain(`${charged} of ZAR 1,000,000.00 used`);
    expect(await page.locator('table').first().locator('tr', { hasText: 'Completed (gross)' }).textContent()).toContain(charged);
    await expect(page.locator('svg rect').count()).resolves.toBe(7);
    await audit('spend');
  });

  it('revokes the token after a confirmation, and the purchase gateway then answers 401', async () => {
    await page.goto(`${base}/tokens`);
    await page.click('a[aria-label="Revoke Till 1"]');
    await audit('token-revoke-confirm');
    await page.click('button:has-text("Revoke token")');
    await expect(page.locator('tr', { hasText: 'Till 1' }).locator('td.status-revoked').textContent()).resolves.toBe('revoked');
    const refused = await call(stack.purchase.url, { path: '/api/v1/transactions', token: tokenSecret });
    expect(refused.status).toBe(401);
    const actions = await stack.sql<{ action: string }>(`SELECT action FROM dashboard_audit_events WHERE vendor_id = $1 AND action LIKE 'token.%' ORDER BY id`, [vendor.vendor.id]);
    expect(actions.map((event) => event.action)).toEqual(['token.created', 'token.revoked']);
  });

  const header = 'reference,amount,method,first_name,surname,phone,id_type,id_number,country_of_issue,nationality';
  const references = [uniqueReference('csv'), uniqueReference('csv'), uniqueReference('csv')];
  const row = (reference: string, phone: string) => `${reference},150.00,bank_a_instant_money,Thandi,Mokoena,${phone},RSAID,${rsaIdNumber()},ZA,ZA`;
  const money = async () => (await stack.sql<{ available_cents: string; reserved_cents: string }>(`SELECT available_cents, reserved_cents FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]))[0];

  async function upload(csv: string): Promise<void> {
    await page.goto(`${base}/batches/new`);
    await page.setInputFiles('#file', { name: 'payouts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.click('button:has-text("Check file")');
  }

  it('refuses a CSV batch with one bad row, showing the row, and reserves and submits nothing', async () => {
    const before = await money();
    await upload([header, row(references[0], '27821234555'), row(references[1], '0821234555'), row(references[2], '27821234555')].join('\n'));
    const refusal = page.locator('section.errors');
    await expect(refusal.locator('h2').textContent()).resolves.toBe('The file was not accepted');
    const cells = await refusal.locator('tbody tr td').allTextContents();
    expect(cells.slice(0, 2)).toEqual(['3', 'recipient.phone']);
    await audit('batch-upload-refused');
    expect(await money()).toEqual(before);
    expect(await stack.sql(`SELECT 1 FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(0);
    for (const reference of references) expect(await stack.sql(`SELECT 1 FROM payouts WHERE reference = $1`, [reference])).toHaveLength(0);
  });

  it('accepts the fixed file, submits it as one batch and shows every item paid; the same file again pays nothing more', async () => {
    const csv = [header, ...references.map((reference) => row(reference, '27821234555'))].join('\n');
    await upload(csv);
    await expect(page.locator('#ready').textContent()).resolves.toBe('Ready to submit');
    expect(await stack.sql(`SELECT 1 FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(0);
    await audit('batch-upload-ready');
    await Promise.all([page.waitForURL(/\/batches\/view\?reference=/), page.click('button:has-text("Submit batch")')]);
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('tbody td.status-paid').count()) as number;
      },
      (paid) => paid === 3,
      30_000,
      500,
    );
    await expect(page.locator('#batch-status').textContent()).resolves.toBe('completed');
    await audit('batch-detail');
    const payouts = await stack.sql<{ status: string; merchant_reference: string }>(`SELECT status, merchant_reference FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]);
    expect(payouts.map((payout) => payout.status)).toEqual(['paid', 'paid', 'paid']);
    for (const payout of payouts) expect(await stack.witness('merchant_reference', payout.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    const after = await money();
    expect(BigInt(after.reserved_cents)).toBe(0n);
    expect(BigInt(after.available_cents)).toBe(1_000_000n - 3n * 15_000n - BigInt((await stack.sql<{ fees: string }>(`SELECT sum(fee_cents)::text AS fees FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]))[0].fees));

    await upload(csv);
    await expect(page.locator('#already').textContent()).resolves.toBe('Already submitted');
    expect(await stack.sql(`SELECT 1 FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(3);
    expect(await stack.sql(`SELECT 1 FROM payout_batches WHERE vendor_id = $1`, [vendor.vendor.id])).toHaveLength(1);
  });

  it("answers 404 to another vendor's user for this vendor's purchase, payout and batch", async () => {
    const other = await stack.purchaseVendor({ name: 'Other browser vendor' });
    const stranger = await signIn(dashboard.http, await createDashboardUser(dashboard.app, other.vendor.id, 'owner'));
    const [purchase] = await stack.sql<{ id: string }>(`SELECT id FROM purchase_transactions WHERE reference = $1`, [purchaseReference]);
    const [batch] = await stack.sql<{ reference: string }>(`SELECT reference FROM payout_batches WHERE vendor_id = $1`, [vendor.vendor.id]);
    for (const path of [`/purchases/${purchase.id}`, `/payouts/view?reference=${encodeURIComponent(references[0])}`, `/batches/view?reference=${encodeURIComponent(batch.reference)}`]) {
      expect({ path, status: (await dashboard.http().get(path).set('Cookie', stranger.cookie)).status }).toEqual({ path, status: 404 });
    }
    const list = await dashboard.http().get('/payouts').set('Cookie', stranger.cookie);
    expect(list.text).not.toContain(references[0]);
  });

  it('passes axe-core on the remaining pages', async () => {
    for (const [name, path] of [
      ['payouts', '/payouts'],
      ['batches', '/batches'],
      ['team', '/team'],
      ['audit', '/audit'],
      ['tokens', '/tokens'],
      ['account', '/account'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await audit(name);
    }
    // The two-step set-up page, reached by keyboard from the account page.
    await page.focus('button:has-text("Set up two-step sign-in")');
    await Promise.all([page.waitForURL(`${base}/account/totp`), page.keyboard.press('Enter')]);
    await expect(page.locator('#totp-key').textContent()).resolves.toMatch(/^[A-Z2-7]{16,}$/);
    await audit('account-totp-setup');
    expect(Object.keys(accessibility).length).toBeGreaterThanOrEqual(15);
  });
});
