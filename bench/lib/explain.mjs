import { createHash, randomUUID } from 'node:crypto';
import { withClient } from './database.mjs';

/**
 * EXPLAIN (ANALYZE, BUFFERS) of every query on the hot paths, with the SQL copied from the code
 * (TypeORM-built ones as TypeORM emits them) and real parameters from the bench database.
 * Writes and locking reads run inside a transaction that is rolled back.
 */
export async function explainHotQueries(databaseUrl, vendors) {
  return withClient(databaseUrl, async (client) => {
    const vendor = vendors[0];
    const one = async (sql, parameters = []) => (await client.query(sql, parameters)).rows[0];
    const tokenHash = createHash('sha256').update(vendor.purchaseToken).digest('hex');
    const transaction = await one(`SELECT id, reference, quote_id FROM purchase_transactions WHERE vendor_id = $1 ORDER BY created_at DESC LIMIT 1`, [vendor.id]);
    const pending = (await one(`SELECT id FROM purchase_transactions WHERE status = 'pending' LIMIT 1`)) ?? transaction;
    const version = await one(`SELECT id FROM purchase_pricing_versions ORDER BY id DESC LIMIT 1`);
    const quote = await one(`SELECT id, product_id FROM purchase_quotes WHERE id = $1`, [vendor.templateQuoteId]);
    const payout = await one(`SELECT reference, batch_id FROM payouts WHERE vendor_id = $1 AND batch_id IS NOT NULL LIMIT 1`, [vendor.id]);
    const productIds = (await client.query(`SELECT product_id FROM purchase_vendor_products WHERE vendor_id = $1 ORDER BY product_id LIMIT 50`, [vendor.id])).rows.map((row) => row.product_id);
    const day = (await one(`SELECT to_char(now() AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS day`)).day;

    const queries = [
      ['auth: token by hash (every request)', `SELECT token.id AS token_id, token.vendor_id AS vendor_id, token.abilities AS abilities, vendor.enabled_abilities AS vendor_abilities FROM api_tokens token INNER JOIN vendors vendor ON vendor.id = token.vendor_id WHERE token.token_hash = $1 AND token.revoked_at IS NULL AND token.expires_at > now()`, [tokenHash]],
      ['catalogue: products count', `SELECT count(*)::int AS total FROM purchase_vendor_products vp JOIN purchase_products p ON p.id = vp.product_id AND p.active JOIN purchase_services s ON s.id = p.service_id JOIN purchase_operators o ON o.id = p.operator_id WHERE vp.vendor_id = $1`, [vendor.id]],
      ['catalogue: products page of 50', `SELECT p.id, p.name, p.description, p.pricing_kind, p.provider_type, p.service_id, s.name AS service_name, p.operator_id, o.name AS operator_name, p.country_iso_code, p.fulfilment, p.destination_currency, p.destination_amount, p.range_min, p.range_max, p.range_step, p.benefits, p.requirements, p.supported_lookups FROM purchase_vendor_products vp JOIN purchase_products p ON p.id = vp.product_id AND p.active JOIN purchase_services s ON s.id = p.service_id JOIN purchase_operators o ON o.id = p.operator_id WHERE vp.vendor_id = $1 ORDER BY p.id LIMIT 50 OFFSET 0`, [vendor.id]],
      ['pricing: current version (TypeORM findOne)', `SELECT "PricingVersionEntity"."id", "PricingVersionEntity"."margin_bps", "PricingVersionEntity"."product_count", "PricingVersionEntity"."published_at" FROM "purchase_pricing_versions" "PricingVersionEntity" ORDER BY "PricingVersionEntity"."id" DESC LIMIT 1`, []],
      ['pricing: listed prices of a page', `SELECT product_id, vendor_price_cents FROM purchase_pricing_version_prices WHERE pricing_version_id = $1 AND product_id = ANY($2::int[])`, [version.id, productIds]],
      ['quotes: product enabled for vendor', `SELECT vp.product_id FROM purchase_vendor_products vp JOIN purchase_products p ON p.id = vp.product_id AND p.active WHERE vp.vendor_id = $1 AND vp.product_id = $2`, [vendor.id, quote.product_id]],
      ['quotes: insert', `INSERT INTO purchase_quotes (id, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount, destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, expires_at) SELECT $1, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, 'ZAR', destination_amount, destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, now() + interval '300 seconds' FROM purchase_quotes WHERE id = $2`, [randomUUID(), quote.id], 'write'],
      ['quotes: read back by id and vendor', `SELECT * FROM purchase_quotes WHERE id = $1 AND vendor_id = $2 LIMIT 1`, [quote.id, vendor.id]],
      ['admission: idempotency claim', `INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING transaction_id`, [vendor.id, `explain-${randomUUID()}`, quote.id, 'explain-ref', randomUUID()], 'write'],
      ['admission: reference taken?', `SELECT 1 FROM purchase_transactions WHERE vendor_id = $1 AND reference = $2`, [vendor.id, 'explain-ref']],
      ['admission: quote lock', `SELECT id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount, destination_unit, identifiers, expires_at, used_at FROM purchase_quotes WHERE id = $1 AND vendor_id = $2 FOR UPDATE`, [quote.id, vendor.id], 'write'],
      ['admission: global pause', `SELECT paused_at FROM purchase_global_controls`, []],
      ['admission: spend-controls lock', `SELECT daily_cap_cents, transaction_max_cents, velocity_count, velocity_window_seconds, paused_at FROM purchase_spend_controls WHERE vendor_id = $1 FOR UPDATE`, [vendor.id], 'write'],
      ['admission: velocity count (60 s window)', `SELECT count(*)::int AS count FROM purchase_transactions WHERE vendor_id = $1 AND created_at > $2`, [vendor.id, new Date(Date.now() - 60_000)]],
      ['admission: allowance row', `INSERT INTO purchase_daily_allowances (vendor_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [vendor.id, day], 'write'],
      ['admission: allowance guarded update', `UPDATE purchase_daily_allowances SET used_cents = used_cents + $3 WHERE vendor_id = $1 AND day = $2 AND used_cents + $3 <= $4 RETURNING used_cents`, [vendor.id, day, '1000', '100000000000'], 'write'],
      ['admission: quote use', `UPDATE purchase_quotes SET used_at = now() WHERE id = $1`, [quote.id], 'write'],
      ['admission: status event', `INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, reason) VALUES ($1, NULL, 'pending', 'admitted')`, [transaction.id], 'write'],
      ['admission: outbox row', `INSERT INTO outbox_messages (job_name, job_id, payload, run_at, dispatched_at) VALUES ('purchase.submit', $1, $2::jsonb, now(), NULL)`, [`submit.${randomUUID()}`, '{}'], 'write'],
      ['transactions: read by id (also the 202 body)', `SELECT t.id, t.reference, t.status, t.product_id, t.quote_id, t.charge_cents, t.currency, t.destination_amount, t.destination_unit, t.error_code, t.created_at, t.updated_at, t.completed_at, t.reversed_at, (t.status = 'completed' AND EXISTS (SELECT 1 FROM purchase_fulfilments f WHERE f.transaction_id = t.id)) AS fulfilment_available FROM purchase_transactions t WHERE t.vendor_id = $1 AND t.id = $2`, [vendor.id, transaction.id]],
      ['replay: stored key', `SELECT quote_id, reference, transaction_id FROM purchase_idempotency_keys WHERE vendor_id = $1 AND idempotency_key = $2`, [vendor.id, 'key-tx-0-0']],
      ['worker: outbox relay claim', `SELECT id, job_name, job_id, payload, run_at FROM outbox_messages WHERE dispatched_at IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED`, [], 'write'],
      ['worker: submission row', `SELECT t.id, t.status, t.product_id, p.pricing_kind, t.destination_amount, t.identifiers, t.created_at, t.submission_attempted_at, t.provider_transaction_id, t.next_check_at FROM purchase_transactions t JOIN purchase_products p ON p.id = t.product_id WHERE t.id = $1`, [pending.id]],
      ['worker: outcome lock', `SELECT id, vendor_id, status FROM purchase_transactions WHERE id = $1 FOR UPDATE`, [pending.id], 'write'],
      ['callback: transaction by external id', `SELECT id FROM purchase_transactions WHERE id = $1`, [pending.id]],
      ['worker sweeper: overdue checks', `SELECT id FROM purchase_transactions WHERE next_check_at < now() - make_interval(secs => 60) AND status IN ('pending', 'completed') ORDER BY next_check_at LIMIT 500 FOR UPDATE SKIP LOCKED`, [], 'write'],
      ['worker sweeper: unsubmitted purchases', `SELECT t.id FROM purchase_transactions t WHERE t.status = 'pending' AND t.submission_attempted_at IS NULL AND t.provider_transaction_id IS NULL AND t.created_at < now() - make_interval(secs => 60) AND NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.dispatched_at IS NULL AND o.job_id = 'submit.' || t.id) ORDER BY t.created_at LIMIT 500`, []],
      ['payouts: by reference', `SELECT * FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendor.id, payout?.reference ?? 'none']],
      ['payouts: methods of vendor', `SELECT method, enabled, fee_cents, minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1`, [vendor.id]],
      ['payouts: reserve (account row)', `UPDATE payout_accounts SET available_cents = available_cents - $2, reserved_cents = reserved_cents + $2, updated_at = now() WHERE vendor_id = $1 AND available_cents >= $2 RETURNING vendor_id, available_cents, reserved_cents`, [vendor.id, '20250'], 'write'],
      ['batches: items of a batch', `SELECT * FROM payouts WHERE vendor_id = $1 AND batch_id = $2 ORDER BY batch_position`, [vendor.id, payout?.batch_id ?? randomUUID()]],
      ['payouts sweeper: unsubmitted batch items', `SELECT id FROM payouts WHERE status = 'pending' AND submission_started_at IS NULL AND created_at < now() - interval '60 seconds' ORDER BY created_at LIMIT 500`, []],
    ];

    const plans = [];
    for (const [name, sql, parameters, mode] of queries) {
      try {
        await client.query('BEGIN');
        const rows = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING ON, SUMMARY ON) ${sql}`, parameters)).rows;
        await client.query('ROLLBACK');
        const plan = rows.map((row) => row['QUERY PLAN']);
        const execution = plan.find((line) => line.startsWith('Execution Time'));
        plans.push({ name, sql: sql.replace(/\s+/g, ' '), mode: mode ?? 'read', execution_ms: execution ? Number(/([\d.]+) ms/.exec(execution)[1]) : null, plan });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        plans.push({ name, sql, error: error.message });
      }
    }
    return plans;
  });
}
