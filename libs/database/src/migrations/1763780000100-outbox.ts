import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Outbox1763780000100 implements MigrationInterface {
  name = 'Outbox1763780000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox_messages (
        id bigserial PRIMARY KEY,
        job_name text NOT NULL,
        job_id text NOT NULL,
        payload jsonb NOT NULL,
        run_at timestamptz NOT NULL DEFAULT now(),
        dispatched_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The relay only ever scans undispatched rows; a partial index keeps that scan tiny.
    await queryRunner.query(`CREATE INDEX outbox_messages_pending_idx ON outbox_messages (id) WHERE dispatched_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE outbox_messages`);
  }
}
