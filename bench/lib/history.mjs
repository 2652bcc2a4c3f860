import { withClient } from './database.mjs';

/**
 * `rows` past purchases, as the admission and the worker would have left them, spread over the
 * bench vendors and the last ~30 days (ending an hour ago, so they sit outside every velocity
 * window): a used quote, the completed transaction, its idempotency key, its two status
 * events and its dispatched outbox row. Set-based inserts through the tables' real indexes,
 * then VACUUM ANALYZE as autovacuum would do on a table this size, and a CHECKPOINT.
 */
export async function insertHistory(databaseUrl, vendors, rows) {
  await withClient(databaseUrl, async (client) => {
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query(`CREATE TEMP TABLE bench_vendors AS SELECT (ordinality - 1)::int AS n, id FROM unnest($1::uuid[]) WITH ORDINALITY AS id`, [vendors.map((vendor) => vendor.id)]);
    await client.query(`DROP TABLE IF EXISTS bench_history`);
    await client.query(
      `CREATE UNLOGGED TABLE bench_history AS
         SELECT i, v.id AS vendor_id, now() - interval '1 hour' - i * interval '2.5 seconds' AS ts,
                md5('bench-hq-' || i)::uuid AS quote_id, md5('bench-ht-' || i)::uuid AS transaction_id
           FROM generate_series(1, $1) AS i JOIN bench_vendors v ON v.n = i % $2`,
      [rows, vendors.length],
    );
    await client.query(`ANALYZE bench_history`);
  });
  const template = `(SELECT * FROM purchase_quotes WHERE id = '${vendors[0].templateQuoteId}')`;
  // Two sessions, in the order the foreign keys allow: quotes and outbox rows, then transactions,
  // then idempotency keys and events; each table vacuumed as soon as it is complete.
  const session = (statements) =>
    withClient(databaseUrl, async (client) => {
      await client.query(`SET synchronous_commit = off`);
      await client.query(`SET maintenance_work_mem = '256MB'`);
      for (const statement of statements) await client.query(statement);
    });
  await Promise.all([session([QUOTES(template), 'VACUUM (ANALYZE) purchase_quotes']), session([OUTBOX, 'VACUUM (ANALYZE) outbox_messages'])]);
  await session([TRANSACTIONS(template), 'VACUUM (ANALYZE) purchase_transactions']);
  await Promise.all([session([KEYS, 'VACUUM (ANALYZE) purchase_idempotency_keys']), session([EVENTS, 'VACUUM (ANALYZE) purchase_transaction_events'])]);
  await withClient(databaseUrl, async (client) => {
    await client.query(`DROP TABLE IF EXISTS bench_history`);
    // The inserts wrote more WAL than max_wal_size, so PostgreSQL has a checkpoint under way that
    // it spreads over minutes (checkpoint_completion_target). Finishing it here keeps its writes
    // out of the scenario measured next, which would otherwise pay for them in some runs only.
    await client.query(`CHECKPOINT`);
  });
}

const QUOTES = (template) => `
  INSERT INTO purchase_quotes (id, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency, destination_amount,
    destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, created_at, expires_at, used_at)
  SELECT h.quote_id, h.vendor_id, q.product_id, q.pricing_version_id, q.charge_cents, q.wholesale_cents, q.currency, q.destination_amount,
         q.destination_unit, q.benefits, q.budget_cents, q.unused_budget_cents, q.identifiers, h.ts, h.ts + interval '300 seconds', h.ts + interval '1 second'
    FROM bench_history h CROSS JOIN ${template} q`;

const TRANSACTIONS = (template) => `
  INSERT INTO purchase_transactions (id, vendor_id, reference, quote_id, product_id, pricing_version_id, status, charge_cents, wholesale_cents,
    currency, destination_amount, destination_unit, identifiers, admission_day, created_at, updated_at, completed_at, submission_attempted_at,
    submission_ended_at, submission_outcome, provider_transaction_id, provider_status, check_seq, last_checked_at, reversal_watch_until)
  SELECT h.transaction_id, h.vendor_id, 'hist-' || h.i, h.quote_id, q.product_id, q.pricing_version_id, 'completed', q.charge_cents, q.wholesale_cents,
         q.currency, q.destination_amount, q.destination_unit, q.identifiers, (h.ts AT TIME ZONE 'Africa/Johannesburg')::date, h.ts + interval '1 second',
         h.ts + interval '3 seconds', h.ts + interval '2 seconds', h.ts + interval '1.1 seconds', h.ts + interval '1.3 seconds', 'accepted',
         5000000000 + h.i, 'COMPLETED', 2, h.ts + interval '3 seconds', h.ts + interval '1 day'
    FROM bench_history h CROSS JOIN ${template} q`;

const KEYS = `
  INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id, created_at)
  SELECT h.vendor_id, 'hist-key-' || h.i, h.quote_id, 'hist-' || h.i, h.transaction_id, h.ts + interval '1 second' FROM bench_history h`;

const EVENTS = `
  INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, provider_status, reason, created_at)
  SELECT h.transaction_id, e.from_status, e.to_status, e.provider_status, e.reason, h.ts + e.after
    FROM bench_history h CROSS JOIN (VALUES (NULL, 'pending', NULL, 'admitted', interval '1 second'),
                                            ('pending', 'completed', 'COMPLETED', 'provider COMPLETED', interval '3 seconds')) AS e(from_status, to_status, provider_status, reason, after)`;

const OUTBOX = `
  INSERT INTO outbox_messages (job_name, job_id, payload, run_at, dispatched_at, created_at)
  SELECT 'purchase.submit', 'submit.' || h.transaction_id, jsonb_build_object('transactionId', h.transaction_id), h.ts + interval '1 second',
         h.ts + interval '1.05 seconds', h.ts + interval '1 second' FROM bench_history h`;
