import { randomUUID } from 'node:crypto';
import { checkInvariants } from '#invariants';
import { SettlementIngestor, type IngestSummary } from '#settlement';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { mobile, purchase, settle, usedAllowance } from '../purchase/purchase-helpers.js';
import { eventually, PRODUCTS, SANDBOX_API_KEY, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The sandbox's clock sits on finished Johannesburg days of its own, so only this file's purchases are on its reports. */
const COMPLETED_DAY = '2026-03-20';
const LATER_DAY = '2026-03-22';

/**
 * Purchase settlement reports end to end: the sandbox's report over HTTP, the worker's ingestor,
 * and the purchase rows, events and daily allowance in PostgreSQL.
 */
describe('purchase settlement reports', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let clock: ManualSandboxClock;
  let ingestor: SettlementIngestor;

  beforeAll(async () => {
    clock = new ManualSandboxClock(new Date(`${COMPLETED_DAY}T08:00:00.000Z`));
    stack = await startPurchaseStack({ sandbox: { clock } });
    vendor = await stack.vendor({ name: 'Settlement purchase vendor' });
    ingestor = stack.worker!.get(SettlementIngestor);
  });
  afterAll(async () => stack?.close());

  const sandbox = (path: string, body: unknown = {}) =>
    fetch(`${stack.sandbox.url}/__sandbox/settlement/${path}`, { method: 'POST', headers: { 'x-api-key': SANDBOX_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const buy = async (suffix: string) => (await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(`277212345${suffix}`) })).transaction.id;
  const row = async (id: string) =>
    (
      await stack.db.query(
        `SELECT status, next_check_at, wholesale_cents::text AS wholesale_cents, provider_transaction_id::text AS provider_transaction_id, allowance_returned_at
           FROM purchase_transactions WHERE id = $1`,
        [id],
      )
    )[0];
  const events = async (id: string) => (await stack.db.query(`SELECT from_status, to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id])) as object[];
  const exceptionsOf = async (dedupeKey: string) => stack.db.query(`SELECT kind, status, purchase_transaction_id, details FROM reconciliation_exceptions WHERE dedupe_key = $1`, [dedupeKey]);
  const rands = (cents: string) => `${BigInt(cents) / 100n}.${String(BigInt(cents) % 100n).padStart(2, '0')}`;
  const nothingNew = (summary: IngestSummary) => expect(summary).toMatchObject({ new_lines: 0, results: { matched: 0, applied: 0, exception: 0 }, missing_lines_raised: 0 });
  const extraLine = async (id: string, status: 'COMPLETED' | 'REVERSED') => {
    const current = await eventually(() => row(id), (value) => value.provider_transaction_id !== null);
    const response = await sandbox(`dvs/extra-lines/${LATER_DAY}`, {
      provider_reference: current.provider_transaction_id,
      merchant_reference: id,
      amount: rands(current.wholesale_cents),
      status,
      settled_at: clock.now().toISOString(),
    });
    expect(response.status).toBe(200);
  };

  it('a purchase reversed after its watch is found by the settlement report: reversed, allowance kept, once', async () => {
    const id = await buy('55');
    await settle(stack, vendor, id, ['completed']);
    // The watch ends: the worker stops looking at it.
    await eventually(() => row(id), (value) => value.status === 'completed' && value.next_check_at === null);
    const completedReport = await ingestor.ingest('dvs', COMPLETED_DAY);
    expect(completedReport).toMatchObject({ day_complete: true, results: { applied: 0, exception: 0 }, missing_lines_raised: 0 });

    clock.advance(2 * DAY_MS);
    expect((await sandbox(`dvs/reverse/${id}`)).status).toBe(200);
    const allowance = await usedAllowance(stack, vendor.vendor.id);
    const summary = await ingestor.ingest('dvs', LATER_DAY);
    expect(summary).toMatchObject({ new_lines: 1, results: { matched: 0, applied: 1, exception: 0 }, missing_lines_raised: 0 });
    expect(await row(id)).toMatchObject({ status: 'reversed', allowance_returned_at: null });
    expect(await events(id)).toContainEqual({ from_status: 'completed', to_status: 'reversed' });
    expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowance);

    nothingNew(await ingestor.ingest('dvs', LATER_DAY));
    nothingNew(await ingestor.ingest('dvs', COMPLETED_DAY));
    expect((await events(id)).filter((event) => (event as { to_status: string }).to_status === 'reversed')).toHaveLength(1);
    expect(await stack.sandbox.creates(id)).toBe(1);
  });

  it('a purchase still pending or in review is completed by a report line, as a verified outcome', async () => {
    // 05: the provider keeps it SUBMITTED to every lookup and never calls back.
    const id = await buy('05');
    await extraLine(id, 'COMPLETED');
    const summary = await ingestor.ingest('dvs', LATER_DAY);
    expect(summary.results).toEqual({ matched: 0, applied: 1, exception: 0 });
    expect(await row(id)).toMatchObject({ status: 'completed', allowance_returned_at: null });
    expect((await events(id)).at(-1)).toEqual({ from_status: expect.stringMatching(/^(pending|review)$/), to_status: 'completed' });
    nothingNew(await ingestor.ingest('dvs', LATER_DAY));
    expect(await stack.sandbox.creates(id)).toBe(1);
  });

  it('a failed purchase on the report becomes a late_creation exception; it stays failed and the allowance is unchanged', async () => {
    const id = await buy('01');
    await settle(stack, vendor, id, ['failed']);
    await extraLine(id, 'COMPLETED');
    const allowance = await usedAllowance(stack, vendor.vendor.id);
    const summary = await ingestor.ingest('dvs', LATER_DAY);
    expect(summary.results).toEqual({ matched: 0, applied: 0, exception: 1 });
    const current = await row(id);
    expect(current.status).toBe('failed');
    expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowance);
    expect(await exceptionsOf(`purchase:${id}:late_creation`)).toEqual([
      expect.objectContaining({
        kind: 'late_creation',
        status: 'open',
        purchase_transaction_id: id,
        details: expect.objectContaining({ provider_status: 'COMPLETED', provider_transaction_id: current.provider_transaction_id, source: 'settlement_report' }),
      }),
    ]);
    nothingNew(await ingestor.ingest('dvs', LATER_DAY));
    expect(await exceptionsOf(`purchase:${id}:late_creation`)).toHaveLength(1);
  });

  it('an amount that differs, an unknown line and a completed purchase missing from the report each raise one exception', async () => {
    const differing = await buy('55');
    const missing = await buy('55');
    await settle(stack, vendor, differing, ['completed']);
    await settle(stack, vendor, missing, ['completed']);
    await sandbox(`dvs/lines/${differing}`, { amount: '1.00' });
    await sandbox(`dvs/lines/${missing}`, { omit: true });
    const stranger = randomUUID();
    await sandbox(`dvs/extra-lines/${LATER_DAY}`, { provider_reference: '9999000001', merchant_reference: stranger, amount: '25.00', status: 'COMPLETED', settled_at: clock.now().toISOString() });

    const summary = await ingestor.ingest('dvs', LATER_DAY);
    expect(summary).toMatchObject({ results: { matched: 0, applied: 0, exception: 2 }, missing_lines_raised: 1 });
    // Each line's exception is keyed by the line (its own observation).
    const lineKey = async (merchantReference: string, kind: string) => {
      const [line] = await stack.db.query(`SELECT id::text AS id FROM settlement_lines WHERE merchant_reference = $1 ORDER BY id LIMIT 1`, [merchantReference]);
      return `settlement_line:${line.id}:${kind}`;
    };
    expect(await exceptionsOf(await lineKey(differing, 'amount_mismatch'))).toEqual([expect.objectContaining({ kind: 'amount_mismatch', details: expect.objectContaining({ provider_amount: '1.00' }) })]);
    expect(await exceptionsOf(await lineKey(stranger, 'unknown_line'))).toEqual([expect.objectContaining({ kind: 'unknown_line', purchase_transaction_id: null })]);
    expect(await exceptionsOf(`purchase:${missing}:missing_line:${LATER_DAY}`)).toEqual([expect.objectContaining({ kind: 'missing_line', purchase_transaction_id: missing })]);
    expect((await row(differing)).status).toBe('completed');
    nothingNew(await ingestor.ingest('dvs', LATER_DAY));
  });

  it('leaves every settlement line of its records matched, applied or with an exception (invariant checker)', async () => {
    const report = await checkInvariants((sql, parameters) => stack.db.query(sql, parameters), { vendorIds: [vendor.vendor.id] });
    expect(report.examined.settlementLines).toBeGreaterThanOrEqual(4);
    expect(report.violations.filter((violation) => violation.invariant === 'settlementLines')).toEqual([]);
  });
});
