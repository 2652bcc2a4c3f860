import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The provider's callback in one round trip: purchase_callback_hint.
 *
 * A callback was seven round trips in the gateway (the id lookup, BEGIN, the per-transaction
 * advisory lock, the marker, the open-marker check, the outbox row, COMMIT) for what is only a
 * hint. The function keeps the same statements in the same order, and, called as one statement
 * outside an explicit transaction, holds the advisory lock to its commit as before: callbacks of
 * one transaction are serialised, so a burst still yields exactly one waiting verification job.
 *
 * The job's id and payload are built here because they name the marker this statement inserts.
 * They must equal what the typed job registry builds for `purchase.verify` with reason
 * `callback` (JOB_IDS in libs/queues/src/queue-registry.ts); test/purchase/purchase-flows
 * compares the two. Returns no row when neither id names a transaction we hold, otherwise the
 * transaction, the marker and the job id (NULL when an earlier open marker's job covers this one).
 */
export class PurchaseCallbackFunction1763781700000 implements MigrationInterface {
  name = 'PurchaseCallbackFunction1763781700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION purchase_callback_hint(p_external_id uuid, p_provider_transaction_id bigint, p_hint text)
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
        END IF;

        PERFORM pg_advisory_xact_lock(hashtext('purchase-callback:' || v_transaction::text));
        INSERT INTO purchase_callback_markers (transaction_id, provider_status_hint) VALUES (v_transaction, p_hint)
        RETURNING id INTO v_marker;
        -- The job id names the first open marker, so a burst of callbacks makes one job.
        IF NOT EXISTS (SELECT 1 FROM purchase_callback_markers m
                        WHERE m.transaction_id = v_transaction AND m.processed_at IS NULL AND m.id < v_marker) THEN
          v_job_id := 'verify.' || v_transaction::text || '.callback.' || v_marker::text;
          INSERT INTO outbox_messages (job_name, job_id, payload, run_at)
          VALUES ('purchase.verify', v_job_id,
                  jsonb_build_object('transactionId', v_transaction::text, 'reason', 'callback', 'marker', v_marker::text), now());
        END IF;
        RETURN QUERY SELECT v_transaction, v_marker, v_job_id;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION purchase_callback_hint(uuid, bigint, text)`);
  }
}
