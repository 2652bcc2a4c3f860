import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { checkInvariants, type InvariantName, type InvariantReport } from '#invariants';
import { bearer, eventually, SANDBOX_API_KEY, startSandbox } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';

const CLI = 'dist/libs/invariants/src/check-invariants.js';

/**
 * The checker must be able to fail: each invariant is broken on purpose inside a transaction
 * that is rolled back (DDL included, so even CHECK-guarded rules can be broken), and the
 * checker, reading through that transaction, must name it.
 */
describe('invariant checker', () => {
  let stack: ReliabilityStack;
  let buyer: TestVendor;
  let payer: TestVendor;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // The '04' payout below must stay pending (submitted, polls scheduled) for the whole suite: with
    // the payout stack's 1.5 s review delay it moved to needs_review on a busy machine before the
    // case that breaks its poll ran, and that case then found nothing to break.
    stack = await startReliabilityStack({ config: { PAYOUT_REVIEW_AFTER_MS: '600000' } });
    buyer = await stack.purchaseVendor();
    payer = await stack.payoutVendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
    // A little of everything: completed and failed purchases, paid and failed payouts, a batch.
    const completed = await createQuote(stack.purchase.url, buyer.token, airtimeQuote('55'));
    const declined = await createQuote(stack.purchase.url, buyer.token, airtimeQuote('01'));
    ids.completed = dataOf(await buy(stack.purchase.url, buyer.token, completed.id)).id;
    ids.declined = dataOf(await buy(stack.purchase.url, buyer.token, declined.id)).id;
    const paid = cashPayout('55');
    const rejected = cashPayout('01');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body: paid })).status).toBe(200);
    // A provider refusal answers 422 PROVIDER_REJECTED; the payout exists as failed (issue 25).
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body: rejected })).status).toBe(422);
    ids.paidReference = paid.reference;
    ids.failedReference = rejected.reference;
    ids.batch = uniqueReference('inv-batch');
    await stack.payout.http().post('/api/v1/batches').set(bearer(payer.token)).send({ reference: ids.batch, payouts: [cashPayout('55'), cashPayout('55')] }).expect(202);
    await eventually(
      () => stack.sql<{ open: number }>(`SELECT count(*)::int AS open FROM purchase_transactions WHERE vendor_id = $1 AND status = 'pending'`, [buyer.vendor.id]),
      (rows) => rows[0].open === 0,
    );
    await eventually(
      () => stack.sql<{ open: number }>(`SELECT count(*)::int AS open FROM payouts WHERE vendor_id = $1 AND status = 'pending'`, [payer.vendor.id]),
      (rows) => rows[0].open === 0,
    );
    // One payout whose outcome never becomes known: pending, its hold reserved, its polls scheduled.
    const unknown = cashPayout('04');
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body: unknown })).status).toBe(200);
    ids.unknownReference = unknown.reference;
  }, 60_000);
  // Every suite ends with the checker over its own vendors.
  afterAll(() => closeCheckingBooks(stack, vendors));

  const vendors = () => [buyer.vendor.id, payer.vendor.id];

  /** Runs `breakIt` in a transaction, checks through it, rolls back. */
  async function checkBroken(breakIt: (client: pg.Client) => Promise<void>): Promise<InvariantReport> {
    const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await breakIt(client);
      return await checkInvariants(async (text, parameters) => (await client.query(text, parameters as unknown[])).rows, { vendorIds: vendors() });
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  }

  const named = (report: InvariantReport): InvariantName[] => [...new Set(report.violations.map((violation) => violation.invariant))].sort();

  it('finds nothing wrong with books the services wrote, having looked at every kind of row', async () => {
    const report = await stack.invariants(vendors());
    expect(report.violations).toEqual([]);
    expect(report.examined).toMatchObject({
      ledgerSums: 1,
      payoutEntriesMatchStatus: 5,
      payoutHoldsJustified: 1,
      batchTotals: 1,
      dailyAllowance: 1,
      quoteFundsOneTransaction: 2,
      idempotencyRecordsMatch: 2,
      velocityCounters: expect.any(Number),
    });
    expect(report.examined.velocityCounters).toBeGreaterThanOrEqual(1);
  });

  it.each<[string, InvariantName[], (client: pg.Client) => Promise<void>]>([
    ['a balance moved without an entry', ['ledgerSums'], (c) => c.query(`UPDATE payout_accounts SET available_cents = available_cents + 1 WHERE vendor_id = $1`, [payer.vendor.id]).then(() => undefined)],
    [
      'a negative balance (CHECK dropped for the test)',
      ['ledgerSums', 'nonNegativeBalances'],
      async (c) => {
        await c.query(`ALTER TABLE payout_accounts DROP CONSTRAINT payout_accounts_balances_non_negative`);
        await c.query(`UPDATE payout_accounts SET available_cents = -5 WHERE vendor_id = $1`, [payer.vendor.id]);
      },
    ],
    [
      'a hold without an open payout',
      ['ledgerSums', 'reservedHoldsOpenPayouts'],
      (c) => c.query(`UPDATE payout_accounts SET reserved_cents = reserved_cents + 7 WHERE vendor_id = $1`, [payer.vendor.id]).then(() => undefined),
    ],
    [
      'a paid payout without its settle entry',
      ['payoutEntriesMatchStatus'],
      (c) => c.query(`UPDATE payouts SET status = 'paid' WHERE vendor_id = $1 AND reference = $2`, [payer.vendor.id, ids.failedReference]).then(() => undefined),
    ],
    [
      'a batch whose totals differ from its items',
      ['batchTotals'],
      (c) => c.query(`UPDATE payout_batches SET total_amount_cents = total_amount_cents + 1 WHERE vendor_id = $1`, [payer.vendor.id]).then(() => undefined),
    ],
    [
      'allowance used that no admission explains',
      ['dailyAllowance'],
      (c) => c.query(`UPDATE purchase_daily_allowances SET used_cents = used_cents + 100 WHERE vendor_id = $1`, [buyer.vendor.id]).then(() => undefined),
    ],
    [
      'allowance given back for a completed purchase',
      ['allowanceReturnedOnlyOnFailure', 'dailyAllowance'],
      (c) => c.query(`UPDATE purchase_transactions SET allowance_returned_at = now() WHERE id = $1`, [ids.completed]).then(() => undefined),
    ],
    [
      'a quote funding two transactions (unique index dropped for the test)',
      ['dailyAllowance', 'idempotencyRecordsMatch', 'quoteFundsOneTransaction'],
      async (c) => {
        await c.query(`ALTER TABLE purchase_transactions DROP CONSTRAINT purchase_transactions_quote_key`);
        // The declined purchase's row now claims the completed purchase's quote too.
        await c.query(`UPDATE purchase_transactions SET quote_id = (SELECT quote_id FROM purchase_transactions WHERE id = $1), allowance_returned_at = NULL, status = 'completed' WHERE id = $2`, [
          ids.completed,
          ids.declined,
        ]);
      },
    ],
    [
      'an idempotency record naming another reference',
      ['idempotencyRecordsMatch'],
      (c) => c.query(`UPDATE purchase_idempotency_keys SET reference = 'tampered' WHERE transaction_id = $1`, [ids.completed]).then(() => undefined),
    ],
    [
      'a velocity counter that lost an admission',
      ['velocityCounters'],
      (c) => c.query(`UPDATE purchase_velocity_buckets SET admissions = admissions + 1 WHERE vendor_id = $1`, [buyer.vendor.id]).then(() => undefined),
    ],
    [
      'a settlement line left unmatched after its report was reconciled',
      ['settlementLines'],
      async (c) => {
        const report = await c.query(`INSERT INTO settlement_reports (provider, report_date, line_count, checksum, reconciled_at) VALUES ('dvs', '2026-01-01', 1, repeat('0', 64), now()) RETURNING id`);
        await c.query(
          `INSERT INTO settlement_lines (report_id, line_key, domain, provider_reference, merchant_reference, amount_cents, currency, status, line, purchase_transaction_id, received_at)
           VALUES ($1, repeat('a', 64), 'purchase', '1', $2::text, 100, 'ZAR', 'settled', '{}'::jsonb, $2::uuid, now() - interval '1 minute')`,
          [report.rows[0].id, ids.completed],
        );
      },
    ],
    [
      'a settlement line marked as an exception that does not exist (CHECK dropped for the test)',
      ['settlementLines'],
      async (c) => {
        await c.query(`ALTER TABLE settlement_lines DROP CONSTRAINT settlement_lines_exception_named`);
        const report = await c.query(`INSERT INTO settlement_reports (provider, report_date, line_count, checksum, reconciled_at) VALUES ('dvs', '2026-01-02', 1, repeat('0', 64), now()) RETURNING id`);
        await c.query(
          `INSERT INTO settlement_lines (report_id, line_key, domain, provider_reference, merchant_reference, amount_cents, currency, status, line, purchase_transaction_id, match_result, matched_at)
           VALUES ($1, repeat('b', 64), 'purchase', '1', $2::text, 100, 'ZAR', 'settled', '{}'::jsonb, $2::uuid, 'exception', now())`,
          [report.rows[0].id, ids.completed],
        );
      },
    ],
    [
      'a purchase settled twice by the provider, both lines matched (no duplicate_line exception)',
      ['oneSettlingLinePerRecord'],
      async (c) => {
        const report = await c.query(`INSERT INTO settlement_reports (provider, report_date, line_count, checksum, reconciled_at) VALUES ('dvs', '2026-01-03', 2, repeat('0', 64), now()) RETURNING id`);
        for (const key of ['c', 'd']) {
          await c.query(
            `INSERT INTO settlement_lines (report_id, line_key, domain, provider_reference, merchant_reference, amount_cents, currency, status, line, purchase_transaction_id, match_result, matched_at)
             VALUES ($1, repeat($3::text, 64), 'purchase', '1', $2::text, 100, 'ZAR', 'settled', '{}'::jsonb, $2::uuid, 'matched', now())`,
            [report.rows[0].id, ids.completed, key],
          );
        }
      },
    ],
    [
      'a submitted pending payout nothing will ever look up (its hold stuck)',
      ['payoutHoldsJustified'],
      (c) => c.query(`UPDATE payouts SET next_poll_at = NULL WHERE vendor_id = $1 AND reference = $2`, [payer.vendor.id, ids.unknownReference]).then(() => undefined),
    ],
    [
      'a payout hold older than PAYOUT_HOLD_MAX_AGE_MS (default 5 days) that no staff item owns',
      ['payoutHoldsBounded'],
      (c) => c.query(`UPDATE payouts SET created_at = now() - interval '6 days' WHERE vendor_id = $1 AND reference = $2`, [payer.vendor.id, ids.unknownReference]).then(() => undefined),
    ],
  ])('names %s', async (_label, expected, breakIt) => {
    const report = await checkBroken(breakIt);
    expect(report.ok).toBe(false);
    expect(named(report)).toEqual([...expected].sort());
  });

  it('accepts an old payout hold once a staff item owns it (an open reconciliation exception naming it)', async () => {
    const report = await checkBroken(async (c) => {
      await c.query(`UPDATE payouts SET created_at = now() - interval '6 days' WHERE vendor_id = $1 AND reference = $2`, [payer.vendor.id, ids.unknownReference]);
      await c.query(
        `INSERT INTO reconciliation_exceptions (domain, kind, dedupe_key, vendor_id, payout_id)
         SELECT 'payout', 'hold_overdue', 'payout:' || id || ':hold_overdue:1', vendor_id, id FROM payouts WHERE vendor_id = $1 AND reference = $2`,
        [payer.vendor.id, ids.unknownReference],
      );
    });
    expect(report.violations).toEqual([]);
    expect(report.examined.payoutHoldsBounded).toBe(1);
  });

  it('counts a second provider submission the sandbox witnessed', async () => {
    // A separate sandbox, so the stack's own witness stays clean for the final check.
    const witness = await startSandbox();
    try {
      const [transaction] = await stack.sql<{ id: string; product_id: number }>(`SELECT id, product_id FROM purchase_transactions WHERE id = $1`, [ids.completed]);
      const create = () =>
        fetch(`${witness.url}/dvs/v1/transactions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': SANDBOX_API_KEY },
          body: JSON.stringify({ external_id: transaction.id, product_id: transaction.product_id, credit_party_identifier: { mobile_number: '27821234555' } }),
        });
      expect((await create()).status).toBe(201);
      const once = await checkInvariants(async (text, parameters) => stack.sql(text, parameters), { vendorIds: vendors(), sandboxes: [{ url: witness.url, apiKey: SANDBOX_API_KEY }] });
      expect(once.violations).toEqual([]);
      expect((await create()).status).toBe(409);
      const twice = await checkInvariants(async (text, parameters) => stack.sql(text, parameters), { vendorIds: vendors(), sandboxes: [{ url: witness.url, apiKey: SANDBOX_API_KEY }] });
      expect(twice.violations).toEqual([
        { invariant: 'singleProviderSubmission', subject: transaction.id, details: expect.objectContaining({ kind: 'purchase', count: 2, known: true }) },
      ]);
    } finally {
      await witness.close();
    }
  });

  it('runs as a command: JSON on stdout, exit 0 when the books are right and 1 when not', async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npx tsc -p tsconfig.build.json first`);
    const run = promisify(execFile);
    const args = [CLI, '--vendor', buyer.vendor.id, '--vendor', payer.vendor.id, '--sandbox', stack.sandbox.url, '--sandbox-key', SANDBOX_API_KEY];
    const env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: process.env.E2E_DATABASE_URL };
    const clean = await run(process.execPath, args, { env });
    expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, violations: [] });

    // Committed for a moment (no transaction can span the child process), then put back.
    await stack.sql(`UPDATE payout_accounts SET available_cents = available_cents + 1 WHERE vendor_id = $1`, [payer.vendor.id]);
    try {
      const failure = await run(process.execPath, args, { env }).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(JSON.parse(failure!.stdout)).toMatchObject({ ok: false, violations: [expect.objectContaining({ invariant: 'ledgerSums', subject: payer.vendor.id })] });
    } finally {
      await stack.sql(`UPDATE payout_accounts SET available_cents = available_cents - 1 WHERE vendor_id = $1`, [payer.vendor.id]);
    }
    const unreachable = await run(process.execPath, [CLI, '--sandbox', 'http://127.0.0.1:9'], { env }).then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    expect(unreachable?.code).toBe(2);
  }, 30_000);
});
