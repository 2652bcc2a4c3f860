import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../scripts/mail-catcher/mail-catcher.mjs';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, type DashboardPerson } from '../support/dashboard.js';
import { eventually, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { checkAtBothWidths, openBrowser, type Browser } from './browser.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;
const PUBLIC_URL = 'http://localhost:3200';

/**
 * The dashboard's mail, through a real SMTP server (the local mail catcher the stack runs): an
 * owner invites a colleague, who accepts from the mailed link; the colleague forgets the password
 * and resets it from a mailed single-use link; changes it on "Your account" (current password
 * required); turns on two-step sign-in from a QR code, and is mailed about each change. Every
 * page is checked with axe-core at 1280 px and at 390 px, where it must not scroll sideways.
 */
describe('vendor dashboard mail in Chromium', () => {
  let catcher: MailCatcher;
  let stack: PurchaseStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let owner: DashboardPerson;
  let browser: Browser;
  let page: Page;
  const colleague = { email: `colleague-${process.pid}-${Date.now() % 1e8}@vendor.example`, password: 'first colleague password here' };

  async function audit(name: string): Promise<void> {
    await checkAtBothWidths(page, name);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true, mask: [page.locator('.secret'), page.locator('#totp-qr')] });
    }
  }

  /** The newest mail to `to` whose subject matches, waiting for it to arrive. */
  const mailTo = (to: string, subject: RegExp, after = 0): Promise<CaughtMail> =>
    eventually(
      async () => catcher.messages().filter((mail) => mail.id > after && mail.envelopeTo.includes(to) && subject.test(mail.subject)).at(-1),
      (mail) => mail !== undefined,
      15_000,
      100,
    ) as Promise<CaughtMail>;

  /** The link in a mail, at the dashboard under test (the mail names the configured public URL). */
  function linkIn(mail: CaughtMail): { url: string; token: string } {
    const link = /https?:\/\/\S+/.exec(mail.text)![0];
    expect(link.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    const url = new URL(link);
    return { url: `${base}${url.pathname}${url.search}`, token: url.searchParams.get('token')! };
  }

  const lastMailId = () => catcher.messages().at(-1)?.id ?? 0;

  async function signInAs(email: string, password: string): Promise<void> {
    await page.goto(`${base}/sign-in`);
    await page.fill('#email', email);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/purchases/), page.click('button[type=submit]')]);
  }

  const signOut = () => Promise.all([page.waitForURL(/\/sign-in/), page.click('button:has-text("Sign out")')]);

  beforeAll(async () => {
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, quiet: true });
    stack = await startPurchaseStack();
    dashboard = await startVendorDashboard({ config: { DASHBOARD_PUBLIC_URL: PUBLIC_URL, MAIL_SMTP_URL: catcher.smtpUrl, MAIL_FROM: 'Dashboard <no-reply@gateway.example>' }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.vendor({ name: 'Mail Vendor' });
    owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner');
    browser = await openBrowser();
    page = browser.page;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await stack?.close();
    await catcher?.close();
  });

  it('mails the invite link; the colleague accepts it from the mail and is signed in', async () => {
    await signInAs(owner.email, owner.password);
    await page.goto(`${base}/team`);
    await page.fill('#invite-email', colleague.email);
    await page.selectOption('#invite-role', 'developer');
    await page.click('button:has-text("Create invite link")');
    await expect(page.locator('#invite-made + p').textContent()).resolves.toContain(`We mailed this one-time link to ${colleague.email}`);
    const mail = await mailTo(colleague.email, /invited to Mail Vendor's vendor dashboard/);
    expect(mail.from).toContain('no-reply@gateway.example');
    expect(mail.text).toContain(`${owner.email} invited you to the vendor dashboard of Mail Vendor as developer.`);
    const { url } = linkIn(mail);
    await signOut();

    await page.goto(url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Set your password');
    await page.fill('#password', colleague.password);
    await page.fill('#confirm', colleague.password);
    await Promise.all([page.waitForURL(/\/purchases/), page.click('button:has-text("Create account")')]);
    expect(await page.locator('.who').textContent()).toContain(`${colleague.email} · developer`);
    await signOut();
  });

  it('"forgot password" mails a single-use, time-limited link; its secret is stored only as a hash', async () => {
    await page.goto(`${base}/sign-in`);
    await page.click('a:has-text("Forgot your password?")');
    await audit('forgot-password');
    const before = lastMailId();
    await page.fill('#email', colleague.email.toUpperCase());
    await page.click('button:has-text("Send the link")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('If there is a dashboard account for');
    // An unknown email gets the same answer and no mail.
    await page.goto(`${base}/forgot-password`);
    await page.fill('#email', 'nobody-here@vendor.example');
    await page.click('button:has-text("Send the link")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('If there is a dashboard account for nobody-here@vendor.example');

    const mail = await mailTo(colleague.email, /Reset your vendor dashboard password/, before);
    expect(catcher.messages().filter((caught) => caught.id > before && caught.envelopeTo.includes('nobody-here@vendor.example'))).toEqual([]);
    const { url, token } = linkIn(mail);
    expect(mail.text).toMatch(/expires \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} SAST/);
    const stored = await stack.db.query<{ token_hash: string; expires_in: number }[]>(
      `SELECT r.token_hash, extract(epoch FROM r.expires_at - now())::int AS expires_in FROM dashboard_password_resets r JOIN dashboard_users u ON u.id = r.user_id WHERE u.email = $1`,
      [colleague.email],
    );
    expect(stored).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex'), expires_in: expect.any(Number) }]);
    expect(stored[0].expires_in).toBeGreaterThan(3_500);
    expect(stored[0].expires_in).toBeLessThanOrEqual(3_600);

    await page.goto(url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Choose a new password');
    await audit('reset-password');
    colleague.password = 'second colleague password here';
    await page.fill('#password', colleague.password);
    await page.fill('#confirm', colleague.password);
    await page.click('button:has-text("Change password")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Password changed');
    await mailTo(colleague.email, /password was changed/, mail.id);

    // Single use: the same link again is refused, and changes nothing.
    await page.goto(url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Link not valid');
    await signInAs(colleague.email, colleague.password);
    await signOut();
  });

  it('changes the password on "Your account" only with the current one, and mails a notice', async () => {
    await signInAs(colleague.email, colleague.password);
    await page.goto(`${base}/account`);
    await page.fill('#current_password', 'not the password at all');
    await page.fill('#password', 'third colleague password here');
    await page.fill('#confirm', 'third colleague password here');
    await page.click('button:has-text("Change password")');
    await expect(page.locator('.errors').textContent()).resolves.toContain('That is not your current password.');

    const before = lastMailId();
    await page.fill('#current_password', colleague.password);
    colleague.password = 'third colleague password here';
    await page.fill('#password', colleague.password);
    await page.fill('#confirm', colleague.password);
    await page.click('button:has-text("Change password")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Your password is changed.');
    await audit('account-password-changed');
    await mailTo(colleague.email, /Your password was changed/, before);
    await signOut();
    await signInAs(colleague.email, colleague.password);
  });

  it('shows a QR code for the authenticator app, and mails a notice when two-step sign-in turns on', async () => {
    await page.goto(`${base}/account`);
    await page.click('button:has-text("Set up two-step sign-in")');
    const qr = page.locator('img#totp-qr');
    const source = (await qr.getAttribute('src'))!;
    expect(source).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(source.split(',')[1], 'base64').toString('utf8');
    expect(svg).toMatch(/^<svg[\s\S]*<path[\s\S]*<\/svg>\s*$/);
    // The image was drawn by the browser (a real, decodable SVG), at its full size.
    expect(await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    await audit('account-totp-qr');
    const key = (await page.locator('#totp-key').textContent())!.trim();
    const before = lastMailId();
    await page.fill('#password', colleague.password);
    await page.fill('#code', await generate({ secret: key }));
    await page.click('button:has-text("Turn on")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Two-step sign-in is on.');
    const notice = await mailTo(colleague.email, /Two-step sign-in turned on/, before);
    expect(notice.text).toContain('Mail Vendor');
  });

  it('an owner can require two-step sign-in for the team: who has not set it up reaches only their account page until they do', async () => {
    const viewer = await createDashboardUser(dashboard.app, vendor.vendor.id, 'viewer');
    await signOut();
    await signInAs(owner.email, owner.password);
    await page.goto(`${base}/team`);
    await page.click('button:has-text("Require two-step sign-in for everyone")');
    await expect(page.locator('.errors').textContent()).resolves.toContain('Turn on two-step sign-in for your own account first');
    expect(await stack.db.query(`SELECT 1 FROM dashboard_team_settings WHERE vendor_id = $1 AND require_two_step`, [vendor.vendor.id])).toEqual([]);

    await enrolTwoStep(owner.password);
    await page.goto(`${base}/team`);
    await page.click('button:has-text("Require two-step sign-in for everyone")');
    await expect(page.locator('#two-step-policy').textContent()).resolves.toContain('Required');
    await audit('team-two-step-required');
    await signOut();

    // The viewer, without a second factor, signs in with the password and is held on the account page.
    await signInAs(viewer.email, viewer.password);
    expect((await page.goto(`${base}/purchases`))!.status()).toBe(403);
    await expect(page.locator('main').textContent()).resolves.toContain('Your team requires two-step sign-in. Set it up on Your account first');
    expect((await page.goto(`${base}/account`))!.status()).toBe(200);
    await enrolTwoStep(viewer.password);
    expect((await page.goto(`${base}/purchases`))!.status()).toBe(200);
  });

  /** Turns on two-step sign-in for the signed-in person from their account page. */
  async function enrolTwoStep(password: string): Promise<void> {
    await page.goto(`${base}/account`);
    await page.click('button:has-text("Set up two-step sign-in")');
    const key = (await page.locator('#totp-key').textContent())!.trim();
    await page.fill('#password', password);
    await page.fill('#code', await generate({ secret: key }));
    await page.click('button:has-text("Turn on")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Two-step sign-in is on.');
  }
});
