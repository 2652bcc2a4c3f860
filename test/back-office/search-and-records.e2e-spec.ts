import { randomUUID } from 'node:crypto';
import { johannesburgDayOf } from '#common';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { ReconciliationExceptionsService } from '#reconciliation';
import { StaffAuditLog } from '#staff';
import { parseCsv } from '../../apps/vendor-dashboard/src/web/csv.js';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, staffSignIn, type StaffSignedIn } from '../support/back-office.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout } from '../payout/payout-requests.js';

/** The kinds the search groups its matches by, each under a heading `found-<kind>`. */
const KINDS = ['purchases', 'payouts', 'batches', 'vendors', 'exceptions'] as const;
type Kind = (typeof KINDS)[number];

/** The record pages each kind's matches link to, by id. */
const LINK: Record<Exclude<Kind, 'batches'>, RegExp> = {
  purchases: /href="\/queues\/purchases\/([0-9a-f-]{36})"/g,
  payouts: /href="\/queues\/payouts\/([0-9a-f-]{36})"/g,
  vendors: /<td><a href="\/vendors\/([0-9a-f-]{36})">/g,
  exceptions: /href="\/exceptions\/([0-9a-f-]{36})"/g,
};
const idsIn = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((match) => match[1]))].sort();
const sorted = (values: string[]) => [...values].sort();
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Issue 28, the back-office's missing parts, through HTTP against the real gateways, worker and
 * sandbox: one search box finds a purchase, payout or batch by id or reference, a vendor by id or
 * name and an exception by id, each kind under its heading and nothing else; a vendor's purchases,
 * payouts and batches list only that vendor's records, filtered by status and Johannesburg days,
 * on numbered pages; the audit trail filters by who, what, vendor and days, pages, and exports the
 * same selection as CSV with formulas neutralised. Every list is checked against the database.
 */
describe('back-office search, vendor records and audit trail', () => {
  let stack: ReliabilityStack;
  let backOffice: RunningApp;
  let alpha: TestVendor;
  let beta: TestVendor;
  let support: StaffSignedIn;
  const tag = `s${Date.now().toString(36)}${randomUUID().slice(0, 4)}`;
  let exceptionId: string;
  let batchReference: string;

  const page = (who: StaffSignedIn, path: string) => backOffice.http().get(path).set('Cookie', who.cookie);
  const signedOut = async (path: string) => {
    const response = await backOffice.http().get(path);
    return { status: response.status, location: response.headers.location as string | undefined };
  };
  const search = (text: string) => page(support, `/search?q=${encodeURIComponent(text)}`);
  /** The kinds a search page lists matches of. */
  const kindsFound = (text: string) => KINDS.filter((kind) => text.includes(`id="found-${kind}"`));

  async function purchase(vendor: TestVendor, suffix: string, reference: string): Promise<void> {
    const quote = await createQuote(stack.purchase.url, vendor.token, airtimeQuote(suffix));
    expect((await buy(stack.purchase.url, vendor.token, quote.id, `key-${reference}`, reference)).status).toBe(202);
  }
  async function payout(vendor: TestVendor, suffix: '55' | '01', reference: string): Promise<void> {
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: cashPayout(suffix, { reference }) })).status).toBe(suffix === '55' ? 200 : 422);
  }
  async function vendorWithPayouts(name: string): Promise<TestVendor> {
    const vendor = await stack.purchaseVendor({ name });
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 10_000_000n, 'search test funding');
    return vendor;
  }

  beforeAll(async () => {
    stack = await startReliabilityStack();
    await stack.startWorker();
    backOffice = await startBackOffice({ config: stack.env });
    alpha = await vendorWithPayouts(`Search Alpha ${tag}`);
    beta = await vendorWithPayouts(`Search Beta ${tag}`);
    support = await staffSignIn(backOffice.http, await createStaffUser(backOffice.app, 'support'));

    // Alpha: 27 purchases (two pages of 25), 3 of them declined; beta: 2.
    for (let index = 0; index < 27; index++) await purchase(alpha, index % 9 === 4 ? '01' : '55', `${tag}-ap-${index}`);
    for (let index = 0; index < 2; index++) await purchase(beta, '55', `${tag}-bp-${index}`);
    for (let index = 0; index < 3; index++) await payout(alpha, '55', `${tag}-ao-${index}`);
    await payout(alpha, '01', `${tag}-ao-rejected`);
    await payout(beta, '55', `${tag}-bo-0`);
    batchReference = `${tag}-batch`;
    const batch = await call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: alpha.token, body: { reference: batchReference, payouts: [cashPayout('55'), cashPayout('55')] } });
    expect(batch.status).toBe(202);
    ({ id: exceptionId } = await backOffice.app.get(ReconciliationExceptionsService).raiseAndName({
      domain: 'payout',
      kind: 'status_conflict',
      dedupeKey: `test:search:${tag}`,
      vendorId: alpha.vendor.id,
      provider: 'bank_a_instant_money',
      reportDate: '2026-02-13', // a date no settlement suite reports on
      details: { provider_status: 'PAID', our_status: 'failed' },
    }));
    // Every purchase and payout reaches its outcome (completed or failed, paid or failed), so the
    // status filters have both and nothing moves while the lists are compared with the database.
    await eventually(
      async () =>
        (await stack.sql<{ n: number }>(
          `SELECT (SELECT count(*) FROM purchase_transactions WHERE vendor_id = ANY($1) AND status = 'pending') + (SELECT count(*) FROM payouts WHERE vendor_id = ANY($1) AND status = 'pending') AS n`,
          [[alpha.vendor.id, beta.vendor.id]],
        ))[0].n,
      (n) => Number(n) === 0,
      60_000,
      200,
    );
  }, 180_000);

  afterAll(async () => {
    await backOffice?.close();
    if (stack) await closeCheckingBooks(stack, () => [alpha.vendor.id, beta.vendor.id]);
  });

  it('search finds a purchase, payout, batch, vendor and exception by id or reference, each under its kind and nothing else', async () => {
    const [purchaseRow] = await stack.sql<{ id: string }>(`SELECT id FROM purchase_transactions WHERE vendor_id = $1 AND reference = $2`, [alpha.vendor.id, `${tag}-ap-7`]);
    const [payoutRow] = await stack.sql<{ id: string }>(`SELECT id FROM payouts WHERE vendor_id = $1 AND reference = $2`, [alpha.vendor.id, `${tag}-ao-1`]);
    const [batchRow] = await stack.sql<{ id: string }>(`SELECT id FROM payout_batches WHERE vendor_id = $1 AND reference = $2`, [alpha.vendor.id, batchReference]);

    for (const text of [`${tag}-ap-7`, purchaseRow.id, purchaseRow.id.toUpperCase()]) {
      const found = await search(text);
      expect(found.status).toBe(200);
      expect(kindsFound(found.text)).toEqual(['purchases']);
      expect(idsIn(found.text, LINK.purchases)).toEqual([purchaseRow.id]);
    }
    for (const text of [`${tag}-ao-1`, payoutRow.id]) {
      const found = await search(text);
      expect(kindsFound(found.text)).toEqual(['payouts']);
      expect(idsIn(found.text, LINK.payouts)).toEqual([payoutRow.id]);
      expect(found.text).toMatch(/ZAR 200\.00/);
    }
    for (const text of [batchReference, batchRow.id]) {
      const found = await search(text);
      expect(kindsFound(found.text)).toEqual(['batches']);
      expect(found.text).toContain(`href="/vendors/${alpha.vendor.id}/payouts?batch=${encodeURIComponent(batchReference)}"`);
    }
    for (const text of [`Search Alpha ${tag}`, `alpha ${tag}`, alpha.vendor.id]) {
      const found = await search(text);
      expect(kindsFound(found.text)).toEqual(['vendors']);
      expect(idsIn(found.text, LINK.vendors)).toEqual([alpha.vendor.id]);
    }
    const exception = await search(exceptionId);
    expect(kindsFound(exception.text)).toEqual(['exceptions']);
    expect(idsIn(exception.text, LINK.exceptions)).toEqual([exceptionId]);

    // A reference's start finds every record it starts (the newest 20 at most), of that vendor only here.
    const started = await search(`${tag}-ap-2`);
    expect(kindsFound(started.text)).toEqual(['purchases']);
    const expected = await stack.sql<{ id: string }>(`SELECT id FROM purchase_transactions WHERE left(reference, length($1)) = $1`, [`${tag}-ap-2`]);
    expect(expected.length).toBe(8); // -ap-2 and -ap-20 … -ap-26
    expect(idsIn(started.text, LINK.purchases)).toEqual(sorted(expected.map((row) => row.id)));

    // LIKE wildcards are text: "_" and "%" match only themselves.
    const wildcards = await search(`${tag}_ap%`);
    expect(wildcards.status).toBe(200);
    expect(kindsFound(wildcards.text)).toEqual([]);
    expect(wildcards.text).toContain('Nothing matches');
    expect(kindsFound((await search(`${tag}-zz-nothing`)).text)).toEqual([]);

    // Bad input is a form error, not a 500; the empty box is just the form.
    expect((await search('a\u0000b')).status).toBe(400);
    expect((await search('x'.repeat(201))).status).toBe(400);
    expect(kindsFound((await page(support, '/search')).text)).toEqual([]);
    // Signed out: nothing, only the way to sign in.
    expect(await signedOut(`/search?q=${tag}`)).toEqual({ status: 303, location: `/sign-in?next=${encodeURIComponent(`/search?q=${tag}`)}` });
  });

  it("a vendor's purchases list only its own, filtered by status and Johannesburg days, on numbered pages", async () => {
    const base = `/vendors/${alpha.vendor.id}/purchases`;
    const all = await stack.sql<{ id: string; status: string; created_at: Date }>(`SELECT id, status, created_at FROM purchase_transactions WHERE vendor_id = $1`, [alpha.vendor.id]);
    expect(all.length).toBe(27);
    // The Johannesburg days the purchases were admitted on (one, unless the run crossed midnight there).
    const times = all.map((row) => new Date(row.created_at).getTime());
    const firstDay = johannesburgDayOf(new Date(Math.min(...times)));
    const lastDay = johannesburgDayOf(new Date(Math.max(...times)));
    const dayAfter = johannesburgDayOf(new Date(Math.max(...times) + DAY_MS));
    const first = await page(support, base);
    expect(first.status).toBe(200);
    expect(first.text).toContain('27 purchases, newest first');
    expect(first.text).toContain('Page 1 of 2');
    const second = await page(support, `${base}?page=2`);
    expect(second.text).toContain('Page 2 of 2');
    const shown = [...idsIn(first.text, LINK.purchases), ...idsIn(second.text, LINK.purchases)];
    expect(idsIn(first.text, LINK.purchases)).toHaveLength(25);
    expect(sorted(shown)).toEqual(sorted(all.map((row) => row.id)));
    // Money and time as everywhere: "ZAR 1,234.56", "… SAST".
    expect(first.text).toMatch(/<td class="num">ZAR \d{1,3}(,\d{3})*\.\d{2}<\/td>/);
    expect(first.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} SAST/);
    // Past the end: said so, with a link to the last page.
    expect((await page(support, `${base}?page=5`)).text).toContain('There is no page 5: the last page is 2.');

    const failed = await page(support, `${base}?status=failed`);
    expect(idsIn(failed.text, LINK.purchases)).toEqual(sorted(all.filter((row) => row.status === 'failed').map((row) => row.id)));
    expect(idsIn(failed.text, LINK.purchases)).toHaveLength(3);
    const completed = await page(support, `${base}?status=completed&from=${firstDay}&to=${lastDay}`);
    expect(idsIn(completed.text, LINK.purchases)).toHaveLength(24);
    expect(completed.text).toContain('Page 1 of 1');
    expect(completed.text).not.toContain('Next page');
    const none = await page(support, `${base}?from=${dayAfter}`);
    expect(idsIn(none.text, LINK.purchases)).toEqual([]);
    expect(none.text).toContain('No purchases match.');
    expect((await page(support, `${base}?status=nonsense`)).status).toBe(400);
    expect((await page(support, `${base}?from=2026-02-30`)).status).toBe(400);
    expect((await page(support, `${base}?from=${dayAfter}&to=${lastDay}`)).status).toBe(400);

    const betaList = await page(support, `/vendors/${beta.vendor.id}/purchases`);
    const betaIds = await stack.sql<{ id: string }>(`SELECT id FROM purchase_transactions WHERE vendor_id = $1`, [beta.vendor.id]);
    expect(idsIn(betaList.text, LINK.purchases)).toEqual(sorted(betaIds.map((row) => row.id)));
    expect((await page(support, `/vendors/${randomUUID()}/purchases`)).status).toBe(404);
    expect(await signedOut(base)).toEqual({ status: 303, location: `/sign-in?next=${encodeURIComponent(base)}` });
  });

  it("a vendor's payouts and batches list only its own, by status, batch and days", async () => {
    const base = `/vendors/${alpha.vendor.id}/payouts`;
    const all = await stack.sql<{ id: string; status: string; batch: string | null; created_at: Date }>(
      `SELECT p.id, p.status, b.reference AS batch, p.created_at FROM payouts p LEFT JOIN payout_batches b ON b.id = p.batch_id WHERE p.vendor_id = $1`,
      [alpha.vendor.id],
    );
    expect(all.length).toBe(6);
    const earliest = Math.min(...all.map((row) => new Date(row.created_at).getTime()));
    const list = await page(support, base);
    expect(list.status).toBe(200);
    expect(idsIn(list.text, LINK.payouts)).toEqual(sorted(all.map((row) => row.id)));
    expect(list.text).toContain('ZAR 200.00');
    const paid = await page(support, `${base}?status=paid`);
    expect(idsIn(paid.text, LINK.payouts)).toEqual(sorted(all.filter((row) => row.status === 'paid').map((row) => row.id)));
    const failed = await page(support, `${base}?status=failed`);
    expect(idsIn(failed.text, LINK.payouts)).toEqual(sorted(all.filter((row) => row.status === 'failed').map((row) => row.id)));
    expect(idsIn(failed.text, LINK.payouts).length).toBeGreaterThanOrEqual(1);
    const ofBatch = await page(support, `${base}?batch=${encodeURIComponent(batchReference)}&from=${johannesburgDayOf(new Date(earliest))}`);
    expect(idsIn(ofBatch.text, LINK.payouts)).toEqual(sorted(all.filter((row) => row.batch === batchReference).map((row) => row.id)));
    expect(idsIn(ofBatch.text, LINK.payouts)).toHaveLength(2);
    expect(idsIn((await page(support, `${base}?to=${johannesburgDayOf(new Date(earliest - DAY_MS))}`)).text, LINK.payouts)).toEqual([]);
    expect((await page(support, `${base}?batch=${encodeURIComponent('<script>')}`)).status).toBe(400);

    const betaPayouts = await stack.sql<{ id: string }>(`SELECT id FROM payouts WHERE vendor_id = $1`, [beta.vendor.id]);
    expect(idsIn((await page(support, `/vendors/${beta.vendor.id}/payouts`)).text, LINK.payouts)).toEqual(sorted(betaPayouts.map((row) => row.id)));
    // Alpha's batch reference names no batch of beta's.
    expect(idsIn((await page(support, `/vendors/${beta.vendor.id}/payouts?batch=${encodeURIComponent(batchReference)}`)).text, LINK.payouts)).toEqual([]);

    const batches = await page(support, `/vendors/${alpha.vendor.id}/batches`);
    expect(batches.status).toBe(200);
    expect(batches.text).toContain('1 batch, newest first');
    expect(batches.text).toContain(`href="/vendors/${alpha.vendor.id}/payouts?batch=${encodeURIComponent(batchReference)}"`);
    expect(batches.text).toContain('ZAR 400.00');
    expect((await page(support, `/vendors/${beta.vendor.id}/batches`)).text).toContain('No batches match.');

    // The vendor's page links to its lists.
    const vendorPage = await page(support, `/vendors/${alpha.vendor.id}`);
    for (const path of ['purchases', 'payouts', 'batches']) expect(vendorPage.text).toContain(`href="/vendors/${alpha.vendor.id}/${path}"`);
  });

  it('the audit trail filters by who, what, vendor and Johannesburg days, pages, and exports the selection as CSV', async () => {
    const audit = backOffice.app.get(StaffAuditLog);
    const actor = { staffUserId: null, label: `ops:auditor-${tag}` };
    // 120 records of one actor: three pages of 50. Alternately alpha's and beta's.
    for (let index = 0; index < 120; index++) {
      await audit.record({ actor, action: index % 3 === 0 ? 'test.search_three' : 'test.search_other', subjectType: 'vendor', subjectId: (index % 2 ? beta : alpha).vendor.id, vendorId: (index % 2 ? beta : alpha).vendor.id, reason: `r${tag}-${index}-end`, details: { index } });
    }
    // One whose reason a spreadsheet would run, and two either side of a Johannesburg midnight
    // (21:30 UTC is 23:30 SAST on the 10th; 22:30 UTC is 00:30 SAST on the 11th).
    await audit.record({ actor, action: 'test.search_formula', reason: '=HYPERLINK("http://attacker.example","open")', details: {} });
    await stack.sql(
      `INSERT INTO staff_audit_events (created_at, actor, action, reason, details) VALUES ('2026-03-10T21:30:00Z', $1, 'test.search_day', $2, '{}'), ('2026-03-10T22:30:00Z', $1, 'test.search_day', $3, '{}')`,
      [actor.label, `r${tag}-tenth-end`, `r${tag}-eleventh-end`],
    );
    const reasons = (text: string) => [...text.matchAll(new RegExp(`r${tag}-([a-z0-9]+)-end`, 'g'))].map((match) => match[1]);
    const dbReasons = async (where: string, parameters: unknown[]) =>
      (await stack.sql<{ reason: string }>(`SELECT reason FROM staff_audit_events WHERE actor = $1 AND ${where} ORDER BY id DESC`, [actor.label, ...parameters])).map((row) =>
        row.reason.replace(`r${tag}-`, '').replace('-end', ''),
      );

    const byActor = `/audit?actor=${encodeURIComponent(`auditor-${tag}`)}`;
    const first = await page(support, byActor);
    expect(first.status).toBe(200);
    expect(first.text).toContain('<p>123 records, newest first');
    expect(first.text).toContain('Page 1 of 3');
    const everyone = await dbReasons('reason LIKE $2', [`r${tag}-%`]);
    expect(reasons(first.text)).toEqual(everyone.slice(0, 49)); // the formula record, without such a reason, is the third
    const secondPage = await page(support, `${byActor}&page=2`);
    expect(reasons(secondPage.text)).toEqual(everyone.slice(49, 99));
    expect(secondPage.text).toContain('Page 2 of 3');
    expect(secondPage.text).toContain(`href="/audit?actor=auditor-${tag}&amp;page=3"`);
    expect((await page(support, `${byActor}&page=4`)).text).toContain('There is no page 4: the last page is 3.');

    const three = await page(support, `${byActor}&action=test.search_three`);
    expect(reasons(three.text)).toEqual(await dbReasons(`action = 'test.search_three'`, []));
    expect(three.text).toContain('<p>40 records');
    const ofBeta = await page(support, `${byActor}&vendor=${beta.vendor.id}`);
    expect(reasons(ofBeta.text)).toEqual((await dbReasons('vendor_id = $2', [beta.vendor.id])).slice(0, 50));
    expect(ofBeta.text).toContain('<p>60 records');
    expect(ofBeta.text).toContain('Page 1 of 2');
    expect(reasons((await page(support, `${byActor}&from=2026-03-10&to=2026-03-10`)).text)).toEqual(['tenth']);
    expect(reasons((await page(support, `${byActor}&from=2026-03-11&to=2026-03-11`)).text)).toEqual(['eleventh']);
    expect(reasons((await page(support, `${byActor}&to=2026-03-11`)).text)).toEqual(['eleventh', 'tenth']);
    // A part of the actor matches; LIKE wildcards do not.
    expect((await page(support, `/audit?actor=${encodeURIComponent(`auditor_${tag}`)}`)).text).toContain('<p>0 records');
    expect((await page(support, `${byActor}&vendor=not-a-vendor`)).status).toBe(400);
    expect((await page(support, `${byActor}&from=yesterday`)).status).toBe(400);

    const csv = await page(support, `/audit/export.csv?actor=${encodeURIComponent(`auditor-${tag}`)}&vendor=${alpha.vendor.id}`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="staff-audit-/);
    const rows = parseCsv(csv.text);
    expect(rows[0]).toEqual(['id', 'created_at', 'actor', 'action', 'subject_type', 'subject_id', 'vendor_id', 'vendor_name', 'reason', 'proposal_id', 'approved_by', 'details']);
    const alphaIds = await stack.sql<{ id: string }>(`SELECT id::text AS id FROM staff_audit_events WHERE actor = $1 AND vendor_id = $2 ORDER BY staff_audit_events.id DESC`, [actor.label, alpha.vendor.id]);
    expect(rows.slice(1).map((row) => row[0])).toEqual(alphaIds.map((row) => row.id));
    expect(rows.slice(1).every((row) => row[6] === alpha.vendor.id && row[7] === `Search Alpha ${tag}`)).toBe(true);
    expect(JSON.parse(rows[1][11])).toEqual({ index: 118 });

    // Formula injection: the cell starts with an apostrophe, so a spreadsheet shows it as text.
    const formula = await page(support, `/audit/export.csv?action=test.search_formula&actor=${encodeURIComponent(`auditor-${tag}`)}`);
    const formulaRows = parseCsv(formula.text);
    expect(formulaRows).toHaveLength(2);
    expect(formulaRows[1][8]).toBe(`'=HYPERLINK("http://attacker.example","open")`);
    expect((await page(support, '/audit/export.csv?from=2026-13-01')).status).toBe(400);
    expect((await signedOut('/audit/export.csv')).status).toBe(303);
  });
});
