import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PurchaseCatalogueAndPricing1763780100000 implements MigrationInterface {
  name = 'PurchaseCatalogueAndPricing1763780100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Catalogue rows carry the provider's ids, so a sync is an upsert by id.
    await queryRunner.query(`
      CREATE TABLE purchase_services (
        id integer PRIMARY KEY,
        name text NOT NULL,
        synced_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_countries (
        iso_code char(3) PRIMARY KEY,
        name text NOT NULL,
        currency text NULL,
        synced_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_operators (
        id integer PRIMARY KEY,
        name text NOT NULL,
        country_iso_code char(3) NOT NULL,
        mobile_prefixes text[] NOT NULL DEFAULT '{}',
        synced_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_products (
        id integer PRIMARY KEY,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        provider_type text NOT NULL,
        pricing_kind text NOT NULL CHECK (pricing_kind IN ('fixed', 'ranged')),
        service_id integer NOT NULL REFERENCES purchase_services(id),
        operator_id integer NOT NULL REFERENCES purchase_operators(id),
        country_iso_code char(3) NOT NULL,
        destination_currency text NOT NULL,
        destination_amount text NULL,
        range_min text NULL,
        range_max text NULL,
        range_step text NULL,
        wholesale_price text NULL,
        wholesale_rate text NULL,
        benefits jsonb NOT NULL,
        fulfilment text NOT NULL CHECK (fulfilment IN ('none', 'pin', 'esim')),
        supported_lookups text[] NOT NULL DEFAULT '{}',
        requirements jsonb NOT NULL,
        active boolean NOT NULL DEFAULT true,
        synced_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((pricing_kind = 'fixed' AND destination_amount IS NOT NULL AND wholesale_price IS NOT NULL)
            OR (pricing_kind = 'ranged' AND range_min IS NOT NULL AND range_max IS NOT NULL AND range_step IS NOT NULL AND wholesale_rate IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX purchase_products_operator_idx ON purchase_products (operator_id)`);
    await queryRunner.query(`CREATE INDEX purchase_products_service_idx ON purchase_products (service_id)`);

    await queryRunner.query(`
      CREATE TABLE purchase_vendor_products (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        product_id integer NOT NULL REFERENCES purchase_products(id),
        enabled_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vendor_id, product_id)
      )`);

    // A pricing version is a snapshot: prices and the wholesale terms they were computed from.
    await queryRunner.query(`
      CREATE TABLE purchase_pricing_versions (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        margin_bps integer NOT NULL CHECK (margin_bps >= 0),
        product_count integer NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_pricing_version_prices (
        pricing_version_id integer NOT NULL REFERENCES purchase_pricing_versions(id),
        product_id integer NOT NULL REFERENCES purchase_products(id),
        pricing_kind text NOT NULL CHECK (pricing_kind IN ('fixed', 'ranged')),
        margin_bps integer NOT NULL CHECK (margin_bps >= 0),
        destination_amount text NULL,
        range_min text NULL,
        range_max text NULL,
        range_step text NULL,
        wholesale_cents bigint NULL CHECK (wholesale_cents >= 0),
        wholesale_rate text NULL,
        vendor_price_cents bigint NOT NULL CHECK (vendor_price_cents > 0),
        PRIMARY KEY (pricing_version_id, product_id)
      )`);
    // Published pricing never changes; a new margin means a new version.
    await queryRunner.query(`
      CREATE FUNCTION purchase_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is immutable', TG_TABLE_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER purchase_pricing_versions_immutable BEFORE UPDATE OR DELETE ON purchase_pricing_versions
      FOR EACH ROW EXECUTE FUNCTION purchase_forbid_change()`);
    await queryRunner.query(`
      CREATE TRIGGER purchase_pricing_version_prices_immutable BEFORE UPDATE OR DELETE ON purchase_pricing_version_prices
      FOR EACH ROW EXECUTE FUNCTION purchase_forbid_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE purchase_pricing_version_prices`);
    await queryRunner.query(`DROP TABLE purchase_pricing_versions`);
    await queryRunner.query(`DROP FUNCTION purchase_forbid_change()`);
    await queryRunner.query(`DROP TABLE purchase_vendor_products`);
    await queryRunner.query(`DROP TABLE purchase_products`);
    await queryRunner.query(`DROP TABLE purchase_operators`);
    await queryRunner.query(`DROP TABLE purchase_countries`);
    await queryRunner.query(`DROP TABLE purchase_services`);
  }
}
