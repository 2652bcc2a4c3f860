import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { WebhookEndpointsService } from '#webhooks';
import { startBackOffice, startVendorDashboard, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { createDashboardUser, type DashboardPerson } from '../support/dashboard.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';
import { openBrowser, seriousViolations, type AxeViolation, type Browser } from '../dashboard/browser.js';

/** Set LAYOUT_SCREENSHOTS=1 to refresh the phone-width screenshots in docs/dashboard/phone and docs/back-office/phone. */
const SCREENSHOTS = process.env.LAYOUT_SCREENSHOTS;

/** A phone (390 px) and a desktop (1280 px). */
const WIDTHS = [390, 1280] as const;
/** Pages of one shape (ids and query values aside) are laid out alike: a few of each are enough. */
const PER_SHAPE = 1;
const MAX_PAGES = 80;

interface PageFinding {
  path: string;
  width: number;
  /** How far the page is wider than the window, with the widest elements that stick out. */
  overflow?: { scrollWidth: number; innerWidth: number; culprits: string[] };
  violations?: AxeViolation[];
}

/** "/purchases/3f2c…?page=2" → "/purchases/:id?page": the pages that share a layout. */
function shapeOf(url: URL): string {
  const path = url.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, ':id').replace(/\/\d+(?=\/|$)/g, '/:n');
  return `${path}?${[...url.searchParams.keys()].sort().join('&')}`;
}

/** The page's width against the window's; on overflow, the elements whose right edge is past the window. */
async function overflowOf(page: Page): Promise<PageFinding['overflow']> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number }; querySelectorAll: (selector: string) => ArrayLike<{ getBoundingClientRect(): { right: number }; tagName: string; id: string; className: string }> } }).document;
    const innerWidth = (globalThis as unknown as { innerWidth: number }).innerWidth;
    const scrollWidth = doc.documentElement.scrollWidth;
    if (scrollWidth <= innerWidth) return undefined;
    const culprits = Array.from(doc.querySelectorAll('main *, header *'))
      .filter((element) => element.getBoundingClientRect().right > innerWidth + 1)
      .slice(0, 6)
      .map((element) => `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${typeof element.className === 'string' && element.className ? `.${element.className.split(' ').join('.')}` : ''}`);
    return { scrollWidth, innerWidth, culprits };
  });
}

/**
 * Every page of both apps, at 390 px and at 1280 px: none may be wider than the window (tables
 * scroll inside their own box, long ids and audit details wrap), and axe-core finds no serious
 * violation. The pages are found the way a person finds them: from the navigation, following
 * every link of the app (a few pages of each shape), signed in as someone who sees them all, with
 * data on them: a completed purchase, one in review, a paid batch, a payout in review, a vendor
 * with a long name and a balance in the tens of thousands. Public pages (sign-in, an invite) are visited signed out.
 */
describe('both web apps at phone and desktop width', () => {
  let stack: ReliabilityStack;
  let dashboard: RunningApp;
  let backOffice: RunningApp;
  let dashboardBase: string;
  let backOfficeBase: string;
  let vendor: TestVendor;
  let owner: DashboardPerson;
  let approver: StaffPerson;
  let admin: StaffPerson;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await startReliabilityStack({ config: { PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000' } });
    dashboard = await startVendorDashboard({ config: { ...stack.env, DASHBOARD_PUBLIC_URL: 'http://localhost:3200' }, listen: true });
    backOffice = await startBackOffice({ config: stack.env, listen: true });
    dashboardBase = dashboard.url!.replace('127.0.0.1', 'localhost');
    backOfficeBase = backOffice.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: 'Layout Vendor with a Rather Long Trading Name (Pty) Ltd' });
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 9_870_716n, 'layout test funding');
    owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner');
    await createDashboardUser(dashboard.app, vendor.vendor.id, 'developer');
    approver = await createStaffUser(backOffice.app, 'approver');
    admin = await createStaffUser(backOffice.app, 'admin');

    const completed = await createQuote(stack.purchase.url, vendor.token, airtimeQuote());
    await buy(stack.purchase.url, vendor.token, completed.id, uniqueKey('key'), uniqueKey('layout-done'));
    const stuck = await createQuote(stack.purchase.url, vendor.token, airtimeQuote('05'));
    await buy(stack.purchase.url, vendor.token, stuck.id, uniqueKey('key'), uniqueKey('layout-stuck'));
    const batchReference = uniqueReference('layout-batch');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: vendor.token, body: { reference: batchReference, payouts: [cashPayout('55'), cashPayout('55')] } })).status).toBe(202);
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: cashPayout('04', { amount: '1500.00' }) })).status).toBe(200);
    await eventually(
      async () => (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM payouts WHERE vendor_id = $1 AND status IN ('paid', 'needs_review')`, [vendor.vendor.id]))[0].n,
      (n) => n === 3,
      30_000,
      200,
    );
    // A webhook endpoint on each gateway, made after the events above so none is queued for them: the crawl reaches their pages.
    for (const gateway of ['purchase', 'payout'] as const) {
      await stack.payout.app.get(WebhookEndpointsService).create(vendor.vendor.id, gateway, {
        url: `https://localhost:9443/${gateway}/hooks/a-rather-long-path-that-has-to-wrap-on-a-phone-screen`,
        events: gateway === 'purchase' ? ['transaction.completed'] : ['payout.paid', 'payout.failed', 'payout.reversed', 'batch.completed'],
        description: 'Order system',
      });
    }
    browser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await backOffice?.close();
    if (stack) await closeCheckingBooks(stack, () => [vendor.vendor.id]);
  });

  /** Where the phone screenshots of the app being checked go (docs/dashboard/phone, docs/back-office/phone). */
  let screenshots = '';

  /** Checks the page now open at both widths. */
  async function check(path: string): Promise<PageFinding[]> {
    const findings: PageFinding[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      if (SCREENSHOTS && width === 390) {
        const name = shapeOf(new URL(path, 'http://page')).replace(/\?.*$/, '').replace(/[/:]+/g, '-').replace(/^-|-$/g, '') || 'home';
        mkdirSync(screenshots, { recursive: true });
        await page.screenshot({ path: `${screenshots}/${name}.png`, fullPage: true, mask: [page.locator('.secret')] });
      }
      const overflow = await overflowOf(page);
      const violations = await seriousViolations(page);
      if (overflow || violations.length) findings.push({ path, width, ...(overflow ? { overflow } : {}), ...(violations.length ? { violations } : {}) });
    }
    return findings;
  }

  /** From `start`, every same-origin page reachable by a link, a few of each shape, checked at both widths. */
  async function crawl(base: string, start: string): Promise<{ visited: string[]; findings: PageFinding[] }> {
    const queue = [start];
    const seen = new Set<string>();
    const perShape = new Map<string, number>();
    const visited: string[] = [];
    const findings: PageFinding[] = [];
    while (queue.length && visited.length < MAX_PAGES) {
      const target = new URL(queue.shift()!, base);
      const key = target.pathname + target.search;
      const shape = shapeOf(target);
      if (seen.has(key) || (perShape.get(shape) ?? 0) >= PER_SHAPE) continue;
      seen.add(key);
      perShape.set(shape, (perShape.get(shape) ?? 0) + 1);
      const response = await page.goto(target.href);
      expect({ key, status: response?.status() }).toEqual({ key, status: 200 });
      visited.push(key);
      findings.push(...(await check(key)));
      // A link marked `download` is a file (the statement's CSV), not a page.
      const links = await page.locator('a[href]:not([download])').evaluateAll((anchors) => anchors.map((anchor) => (anchor as unknown as { href: string }).href));
      for (const link of links) {
        const url = new URL(link);
        // Same app only; the assets and the downloads are not pages.
        if (url.origin === new URL(base).origin && !url.pathname.startsWith('/assets/') && !url.pathname.endsWith('.csv') && !url.pathname.endsWith('/download')) queue.push(url.pathname + url.search);
      }
    }
    return { visited, findings };
  }

  it('no page of the vendor dashboard scrolls sideways or has a serious axe-core violation', async () => {
    screenshots = 'docs/dashboard/phone';
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${dashboardBase}/sign-in`);
    const findings = await check('/sign-in');
    for (const path of ['/invite?token=not-a-real-invite', '/forgot-password', '/reset-password?token=not-a-real-link']) {
      await page.goto(`${dashboardBase}${path}`);
      findings.push(...(await check(path)));
    }
    await page.goto(`${dashboardBase}/sign-in`);
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    await Promise.all([page.waitForURL(/\/purchases/), page.click('button[type=submit]')]);
    const crawled = await crawl(dashboardBase, '/purchases');
    // The crawl reached every section and the detail pages behind them.
    for (const path of ['/purchases', '/purchases/:id', '/spend', '/payouts', '/payouts/view', '/batches', '/batches/view', '/batches/new', '/tokens', '/webhooks', '/webhooks/payout/:id', '/webhooks/purchase/:id', '/team', '/audit', '/account']) {
      expect(crawled.visited.map((visited) => shapeOf(new URL(visited, dashboardBase)).split('?')[0])).toContain(path);
    }
    expect([...findings, ...crawled.findings]).toEqual([]);
  }, 300_000);

  it('no page of the back-office scrolls sideways or has a serious axe-core violation', async () => {
    screenshots = 'docs/back-office/phone';
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${backOfficeBase}/sign-in`);
    const findings = await check('/sign-in');
    await page.goto(`${backOfficeBase}/setup?token=not-a-real-link`);
    findings.push(...(await check('/setup')));
    await browserSignIn(page, backOfficeBase, approver, '/');
    const asApprover = await crawl(backOfficeBase, '/');
    await page.click('button:has-text("Sign out")');
    await browserSignIn(page, backOfficeBase, admin, '/staff');
    const asAdmin = await crawl(backOfficeBase, '/staff');
    const shapes = [...asApprover.visited, ...asAdmin.visited].map((visited) => shapeOf(new URL(visited, backOfficeBase)).split('?')[0]);
    for (const path of ['/', '/queues/purchases', '/queues/payouts', '/queues/purchases/:id', '/queues/payouts/:id', '/vendors', '/vendors/:id', '/vendors/:id/payout-methods', '/vendors/:id/purchases', '/vendors/:id/payouts', '/vendors/:id/batches', '/search', '/pricing', '/proposals', '/audit', '/staff']) {
      expect(shapes).toContain(path);
    }
    expect([...findings, ...asApprover.findings, ...asAdmin.findings]).toEqual([]);
  }, 300_000);
});
