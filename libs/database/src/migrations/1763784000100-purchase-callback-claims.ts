import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Callback markers claimed from PostgreSQL: purchase_callback_hint only records the marker.
 *
 * A callback was a marker, an outbox row for the first open marker (under a per-transaction
 * advisory lock, so a burst made one job), a relay round and a BullMQ job before its lookup. The
 * worker now claims open markers in batches (PurchaseCallbackClaims: `FOR UPDATE SKIP LOCKED`,
 * leased through `claimed_until`), so the marker is the durable hint and its delivery at once, and
 * a burst needs no lock: every open marker of a transaction is answered by the one lookup that
 * covers it. The function keeps its signature (job_id is always NULL now), so a gateway of the
 * previous release keeps working during a rolling deploy.
 */

/** This migration's version: the marker alone. */
const MARKER_ONLY = `
        INSERT INTO purchase_callback_markers (transaction_id, provider_status_hint) VALUES (v_transaction, p_hint)
        RETURNING id INTO v_marker;`;

/** Migration 1763781700000's version: the marker and, for the first open one, its verification job (under a per-transaction lock). */
const MARKER_AND_JOB = `
        PERFORM pg_advisory_xact_lock(hashtext('purchase-callback:' || v_transaction::text));
        INSERT INTO purchase_callback_markers (transaction_id, provider_status_hint) VALUES (v_transaction, p_hint)
        RETURNING id INTO v_marker;
        IF NOT EXISTS (SELECT 1 FROM purchase_callback_markers m
                        WHERE m.transaction_id = v_transaction AND m.processed_at IS NULL AND m.id < v_marker) THEN
          v_job_id := 'verify.' || v_transaction::text || '.callback.' || v_marker::text;
          INSERT INTO outbox_messages (job_name, job_id, payload, run_at)
          VALUES ('purchase.verify', v_job_id,
                  jsonb_build_object('transactionId', v_transaction::text, 'reason', 'callback', 'marker', v_marker::text), now());
        END IF;`;

/** purchase_callback_hint: the transaction named by either id (our id first), then `recording`. */
function callbackFunction(recording: string): string {
  return `
      CREATE OR REPLACE FUNCTION purchase_callback_hint(p_external_id uuid, p_provider_transaction_id bigint, p_hint text)
      RETURNS TABLE (transaction_id uuid, marker_id bigint, job_id text)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_transaction uuid;
        v_marker bigint;
        v_job_id text;
      BEGIN
        -- Our id comes back as the provider's external id; the provider's own id is a fallback.
        SELECT t.id INTO v_transaction FROM purchase_transactions t WHERE t.id = p_external_id;
        IF v_transaction IS NULL AND p_provider_transaction_id IS NOT NULL THEN
          SELECT t.id INTO v_transaction FROM purchase_transactions t WHERE t.provider_transaction_id = p_provider_transaction_id;
        END IF;
        IF v_transaction IS NULL THEN
          RETURN;
        END IF;${recording}
        RETURN QUERY SELECT v_transaction, v_marker, v_job_id;
      END $$`;
}

export class PurchaseCallbackClaims1763784000100 implements MigrationInterface {
  name = 'PurchaseCallbackClaims1763784000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When a worker's claim on the marker runs out (it died, or the provider could not answer): then it is claimed again.
    await queryRunner.query(`ALTER TABLE purchase_callback_markers ADD COLUMN claimed_until timestamptz`);
    await queryRunner.query(callbackFunction(MARKER_ONLY));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(callbackFunction(MARKER_AND_JOB));
    await queryRunner.query(`ALTER TABLE purchase_callback_markers DROP COLUMN claimed_until`);
  }
}
