import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed webhooks (docs/INTEGRATION.md, Webhooks). An event is written in the same database
 * transaction as the status change that causes it, with one delivery per subscribed endpoint and
 * the delivery's first job in the outbox, so a committed status move always has its event and a
 * rolled-back one never does. Deliveries carry their own retry schedule (attempts, next_attempt_at,
 * seq); the sweeper rebuilds lost jobs from these rows. Every attempt is logged, with the HTTP
 * status it got, so `delivered` is never set without a 2xx on record.
 */
export class Webhooks1763781100000 implements MigrationInterface {
  name = 'Webhooks1763781100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        gateway text NOT NULL CHECK (gateway IN ('purchase', 'payout')),
        url text NOT NULL,
        description text NULL,
        events text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        secret_encrypted text NOT NULL,
        previous_secret_encrypted text NULL,
        previous_secret_expires_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX webhook_endpoints_vendor_idx ON webhook_endpoints (vendor_id, gateway) WHERE deleted_at IS NULL`);
    await queryRunner.query(`
      CREATE TABLE webhook_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        type text NOT NULL,
        resource_id uuid NOT NULL,
        -- Set for events that must exist once per resource (batch.completed); NULL otherwise.
        dedupe_key text NULL UNIQUE,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhook_events_resource_idx ON webhook_events (resource_id, type)`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event_id uuid NOT NULL REFERENCES webhook_events(id),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
        -- The delivery this one repeats on the vendor's request (POST .../redeliver); NULL for the original.
        redelivery_of uuid NULL REFERENCES webhook_deliveries(id),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
        attempts int NOT NULL DEFAULT 0,
        -- Job generation: the job id is webhook-<id>-<seq>; a job whose seq is not the row's is stale and does nothing.
        seq int NOT NULL DEFAULT 1,
        next_attempt_at timestamptz NULL DEFAULT now(),
        last_http_status int NULL,
        last_error text NULL,
        delivered_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX webhook_deliveries_original_idx ON webhook_deliveries (event_id, endpoint_id) WHERE redelivery_of IS NULL`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC)`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id),
        attempt int NOT NULL,
        http_status int NULL,
        error text NULL,
        duration_ms int NOT NULL,
        attempted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, attempt)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_delivery_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_events`);
    await queryRunner.query(`DROP TABLE webhook_endpoints`);
  }
}
