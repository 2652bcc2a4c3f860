import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change notifications for the gateways' in-process caches (docs/ARCHITECTURE.md, "Caches").
 * A trigger calls pg_notify in the writing transaction, so a notification is delivered only
 * after the change commits, whoever writes it (gateway, back-office, ops CLI, a hand-run UPDATE).
 *
 * - `auth_tokens_changed`: a token revoked, its abilities or expiry changed, a token added or
 *   deleted; a vendor's enabled abilities changed or a vendor deleted. The once-a-minute
 *   last_used_at write is left out: it does not change what a token may do.
 * - `purchase_catalogue_changed`: a product enabled or withdrawn for a vendor, a catalogue
 *   import (products, services, operators, countries), a pricing version published.
 * Statement-level where possible, so a catalogue import of thousands of rows sends one.
 */
export class ChangeNotifications1763781400000 implements MigrationInterface {
  name = 'ChangeNotifications1763781400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One function for every trigger: the channel is the trigger's argument, the payload the table.
    await queryRunner.query(`
      CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(TG_ARGV[0], TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_tokens_changed AFTER INSERT OR DELETE OR TRUNCATE ON api_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_change('auth_tokens_changed')`);
    await queryRunner.query(`
      CREATE TRIGGER api_tokens_access_changed AFTER UPDATE ON api_tokens FOR EACH ROW
        WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
              OR OLD.abilities IS DISTINCT FROM NEW.abilities OR OLD.token_hash IS DISTINCT FROM NEW.token_hash
              OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id)
        EXECUTE FUNCTION notify_change('auth_tokens_changed')`);
    await queryRunner.query(`
      CREATE TRIGGER vendors_abilities_changed AFTER UPDATE ON vendors FOR EACH ROW
        WHEN (OLD.enabled_abilities IS DISTINCT FROM NEW.enabled_abilities)
        EXECUTE FUNCTION notify_change('auth_tokens_changed')`);
    await queryRunner.query(`
      CREATE TRIGGER vendors_removed AFTER DELETE OR TRUNCATE ON vendors
        FOR EACH STATEMENT EXECUTE FUNCTION notify_change('auth_tokens_changed')`);

    for (const table of CATALOGUE_TABLES) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION notify_change('purchase_catalogue_changed')`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of CATALOGUE_TABLES) await queryRunner.query(`DROP TRIGGER ${table}_changed ON ${table}`);
    await queryRunner.query(`DROP TRIGGER vendors_removed ON vendors`);
    await queryRunner.query(`DROP TRIGGER vendors_abilities_changed ON vendors`);
    await queryRunner.query(`DROP TRIGGER api_tokens_access_changed ON api_tokens`);
    await queryRunner.query(`DROP TRIGGER api_tokens_changed ON api_tokens`);
    await queryRunner.query(`DROP FUNCTION notify_change()`);
  }
}

/** What a vendor's priced catalogue is read from. */
const CATALOGUE_TABLES = [
  'purchase_vendor_products',
  'purchase_products',
  'purchase_services',
  'purchase_operators',
  'purchase_countries',
  'purchase_pricing_versions',
  'purchase_pricing_version_prices',
];
