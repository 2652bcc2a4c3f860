import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Submissions claimed from PostgreSQL: purchase_admit no longer writes a `purchase.submit` outbox
 * row when the gateway passes no job (NULL `p_job_name`).
 *
 * Each admitted purchase was an outbox row, a relay round, a BullMQ job and three statements in
 * the worker before its one create; the worker now leases pending, never-attempted purchases in
 * batches straight from purchase_transactions (`FOR UPDATE SKIP LOCKED` over
 * purchase_transactions_unsubmitted_idx, the lease in the new `submission_claimed_until`). The purchase row, committed by this function, is the
 * durable intent to submit, as the outbox row was. The signature is unchanged so a gateway of the
 * previous release still admits (and gets its job) during a rolling deploy. The function text is
 * that of migration 1763781500000 but for the outbox insert (admitFunction: one text, the two
 * versions of the submission intent).
 */
/** This migration's version of the outbox insert: only when a caller still passes a job. */
const JOB_WHEN_ASKED = `        -- A submission job only when the caller still asks for one (p_job_name): the worker now
        -- claims unsubmitted purchases from this table (PurchaseSubmissionClaims), so the row
        -- itself is the durable intent and the gateway passes NULL.
        IF p_job_name IS NOT NULL THEN
          INSERT INTO outbox_messages (job_name, job_id, payload, run_at) VALUES (p_job_name, p_job_id, p_job_payload, now());
        END IF;`;

/** Migration 1763781500000's version: every admission writes its outbox row. */
const JOB_ALWAYS = `        INSERT INTO outbox_messages (job_name, job_id, payload, run_at) VALUES (p_job_name, p_job_id, p_job_payload, now());`;

/** purchase_admit as migration 1763781500000 wrote it, with `submissionIntent` as its last write. */
function admitFunction(submissionIntent: string): string {
  return `
      CREATE OR REPLACE FUNCTION purchase_admit(
        p_vendor uuid, p_key text, p_quote uuid, p_reference text, p_transaction uuid, p_instant timestamptz,
        p_production boolean, p_unready boolean, p_job_name text, p_job_id text, p_job_payload jsonb
      ) RETURNS SETOF purchase_transactions LANGUAGE plpgsql AS $$
      DECLARE
        v_stored record;
        v_quote record;
        v_quote_found boolean;
        v_controls record;
        v_controls_found boolean;
        v_global_paused_at timestamptz;
        v_now timestamptz;
        v_day date;
        v_window_start timestamptz;
        v_admissions bigint;
        v_blocking_at timestamptz;
        v_used_cents bigint;
        v_admitted purchase_transactions;
      BEGIN
        -- The key first: a replay is answered before any pause, expiry or spend check. A
        -- concurrent request with the same key blocks here until the first commits or rolls back.
        INSERT INTO purchase_idempotency_keys (vendor_id, idempotency_key, quote_id, reference, transaction_id)
        VALUES (p_vendor, p_key, p_quote, p_reference, p_transaction) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          SELECT k.quote_id, k.reference, k.transaction_id INTO v_stored
            FROM purchase_idempotency_keys k WHERE k.vendor_id = p_vendor AND k.idempotency_key = p_key;
          IF v_stored.quote_id <> p_quote OR v_stored.reference <> p_reference THEN
            RAISE EXCEPTION USING ERRCODE = 'ZA001', MESSAGE = 'purchase admission refused', DETAIL = '{"code": "IDEMPOTENCY_CONFLICT", "conflict": "key"}';
          END IF;
          RETURN QUERY SELECT * FROM purchase_transactions t WHERE t.vendor_id = p_vendor AND t.id = v_stored.transaction_id;
          RETURN;
        END IF;

        -- The quote, locked, with the facts checked below.
        SELECT q.product_id, q.pricing_version_id, q.charge_cents, q.wholesale_cents, q.currency, q.destination_amount, q.destination_unit,
               q.identifiers, date_trunc('milliseconds', q.expires_at) AS expires_at, q.used_at,
               EXISTS (SELECT 1 FROM purchase_transactions t WHERE t.vendor_id = p_vendor AND t.reference = p_reference) AS reference_taken,
               EXISTS (SELECT 1 FROM purchase_pricing_versions) AS pricing_published,
               (SELECT v.production_released_at FROM vendors v WHERE v.id = p_vendor) AS vendor_released_at
          INTO v_quote FROM purchase_quotes q WHERE q.id = p_quote AND q.vendor_id = p_vendor FOR UPDATE OF q;
        v_quote_found := FOUND;
        v_now := date_trunc('milliseconds', COALESCE(p_instant, now()));
        IF (v_quote_found AND v_quote.reference_taken)
           OR (NOT v_quote_found AND EXISTS (SELECT 1 FROM purchase_transactions t WHERE t.vendor_id = p_vendor AND t.reference = p_reference)) THEN
          RAISE EXCEPTION USING ERRCODE = 'ZA001', MESSAGE = 'purchase admission refused', DETAIL = '{"code": "IDEMPOTENCY_CONFLICT", "conflict": "reference"}';
        END IF;
        IF p_unready THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "PROVIDER_NOT_CONFIGURED"}');
        END IF;
        IF NOT v_quote_found THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "QUOTE_NOT_FOUND"}');
        END IF;
        IF v_quote.used_at IS NOT NULL THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "QUOTE_ALREADY_USED"}');
        END IF;
        IF v_quote.expires_at <= v_now THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "QUOTE_EXPIRED"}');
        END IF;

        -- The vendor's controls, locked: one vendor's admissions serialise from here to commit, so
        -- velocity and the daily allowance are exact. Only the vendor's row is locked.
        SELECT c.daily_cap_cents, c.transaction_max_cents, c.velocity_count, c.velocity_window_seconds, c.paused_at, g.paused_at AS global_paused_at
          INTO v_controls FROM purchase_spend_controls c CROSS JOIN purchase_global_controls g WHERE c.vendor_id = p_vendor FOR UPDATE OF c;
        v_controls_found := FOUND;
        IF v_controls_found THEN
          v_global_paused_at := v_controls.global_paused_at;
        ELSE
          v_global_paused_at := (SELECT g.paused_at FROM purchase_global_controls g LIMIT 1);
        END IF;
        IF v_global_paused_at IS NOT NULL THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "PURCHASES_PAUSED", "scope": "global"}');
        END IF;
        IF v_controls_found AND v_controls.paused_at IS NOT NULL THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "PURCHASES_PAUSED", "scope": "vendor"}');
        END IF;
        IF NOT v_controls_found OR v_controls.daily_cap_cents IS NULL OR v_controls.transaction_max_cents IS NULL
           OR v_controls.velocity_count IS NULL OR v_controls.velocity_window_seconds IS NULL THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "SPEND_CONTROLS_NOT_CONFIGURED"}');
        END IF;
        IF NOT v_quote.pricing_published THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "PRICING_UNPUBLISHED"}');
        END IF;
        IF p_production AND v_quote.vendor_released_at IS NULL THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference, '{"code": "VENDOR_NOT_RELEASED"}');
        END IF;
        IF v_quote.charge_cents > v_controls.transaction_max_cents THEN
          PERFORM purchase_admission_refuse(p_vendor, p_reference,
            jsonb_build_object('code', 'TRANSACTION_MAXIMUM_EXCEEDED', 'transaction_max_cents', v_controls.transaction_max_cents::text));
        END IF;

        -- Velocity: a statement that starts after the controls lock was granted, so it counts every
        -- earlier admission of this vendor.
        v_window_start := v_now - make_interval(secs => v_controls.velocity_window_seconds);
        v_admissions := purchase_admissions_since(p_vendor, v_window_start);
        IF v_admissions >= v_controls.velocity_count THEN
          -- Retry-After: when the admission that must leave the window before one more fits leaves it.
          SELECT date_trunc('milliseconds', t.created_at) INTO v_blocking_at FROM purchase_transactions t
           WHERE t.vendor_id = p_vendor AND t.created_at > v_window_start ORDER BY t.created_at OFFSET v_admissions - v_controls.velocity_count LIMIT 1;
          PERFORM purchase_admission_refuse(p_vendor, p_reference, jsonb_build_object('code', 'VELOCITY_LIMIT_EXCEEDED',
            'retry_after_seconds', greatest(1, ceil(extract(epoch FROM v_blocking_at + make_interval(secs => v_controls.velocity_window_seconds) - v_now)))));
        END IF;

        -- The day's allowance, by a guarded update that only moves while used + charge <= cap, so
        -- the cap holds under any concurrency.
        -- The Africa/Johannesburg day: UTC+2 all year (no daylight saving), as johannesburgDayOf computes it.
        v_day := ((v_now AT TIME ZONE 'UTC') + interval '2 hours')::date;
        INSERT INTO purchase_daily_allowances AS a (vendor_id, day, used_cents)
        SELECT p_vendor, v_day, v_quote.charge_cents WHERE v_quote.charge_cents <= v_controls.daily_cap_cents
        ON CONFLICT (vendor_id, day) DO UPDATE SET used_cents = a.used_cents + EXCLUDED.used_cents
         WHERE a.used_cents + EXCLUDED.used_cents <= v_controls.daily_cap_cents;
        IF NOT FOUND THEN
          v_used_cents := COALESCE((SELECT a.used_cents FROM purchase_daily_allowances a WHERE a.vendor_id = p_vendor AND a.day = v_day), 0);
          PERFORM purchase_admission_refuse(p_vendor, p_reference, jsonb_build_object('code', 'DAILY_CAP_EXCEEDED',
            'remaining_cents', greatest(v_controls.daily_cap_cents - v_used_cents, 0)::text));
        END IF;

        -- The quote's use, the transaction and its first status event.
        UPDATE purchase_quotes SET used_at = v_now WHERE id = p_quote;
        INSERT INTO purchase_transactions (id, vendor_id, reference, quote_id, product_id, pricing_version_id, status, charge_cents,
          wholesale_cents, currency, destination_amount, destination_unit, identifiers, admission_day, created_at, updated_at)
        VALUES (p_transaction, p_vendor, p_reference, p_quote, v_quote.product_id, v_quote.pricing_version_id, 'pending', v_quote.charge_cents,
          v_quote.wholesale_cents, v_quote.currency, v_quote.destination_amount, v_quote.destination_unit, v_quote.identifiers, v_day, v_now, v_now)
        RETURNING * INTO v_admitted;
        INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, reason) VALUES (p_transaction, NULL, 'pending', 'admitted');
${submissionIntent}
        RETURN NEXT v_admitted;
      END $$`;
}

export class PurchaseSubmissionClaims1763784000000 implements MigrationInterface {
  name = 'PurchaseSubmissionClaims1763784000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A round's lease on a purchase while it is looked up, before the attempt itself is claimed
    // (submission_attempted_at): a worker that dies during the lookup sent nothing, and the
    // purchase is taken again when the lease runs out instead of being failed.
    await queryRunner.query(`ALTER TABLE purchase_transactions ADD COLUMN submission_claimed_until timestamptz`);
    await queryRunner.query(admitFunction(JOB_WHEN_ASKED));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE purchase_transactions DROP COLUMN submission_claimed_until`);
    await queryRunner.query(admitFunction(JOB_ALWAYS));
  }
}
