import { Injectable } from '@nestjs/common';
import { DataSource, In, Not, type EntityManager } from 'typeorm';
import { readShape, type Queryable } from '#database';
import { centsFromDbValue } from '#money';
import { productPriceOf, type CountryView, type OperatorView, type ProductView, type ServiceView , type ProductLabel } from '../model/catalogue-views.js';
import { PurchaseCountryEntity, PurchaseOperatorEntity, PurchaseProductEntity, PurchaseServiceEntity } from './catalogue.entities.js';

/** Everything a vendor sees is read through its enabled, active products: the vendorId is always `$1`. */
const ENABLED_PRODUCTS = `
  FROM purchase_vendor_products vp
  JOIN purchase_products p ON p.id = vp.product_id AND p.active
  JOIN purchase_services s ON s.id = p.service_id
  JOIN purchase_operators o ON o.id = p.operator_id
  WHERE vp.vendor_id = $1`;

/** A product's listed price as the page's read selects it (`cents` as text), or null when unpriced. */
type SelectedPrice = { version: number; cents: string; amount: string } | null;

/**
 * A product as the vendor-facing reads select it (joined as in ENABLED_PRODUCTS), its price
 * from `priceSql`: a JSON object of the version, the cents and the amount they buy, or NULL.
 */
function productShape(priceSql: string) {
  return readShape<ProductView>({
    id: 'p.id',
    name: 'p.name',
    description: 'p.description',
    type: 'p.pricing_kind',
    provider_type: 'p.provider_type',
    service: "json_build_object('id', s.id, 'name', s.name)",
    operator: "json_build_object('id', o.id, 'name', o.name)",
    country_iso_code: ['p.country_iso_code', (raw: string) => raw.trim()],
    fulfilment: 'p.fulfilment',
    destination_currency: 'p.destination_currency',
    destination_amount: "CASE WHEN p.pricing_kind = 'ranged' THEN NULL ELSE p.destination_amount END",
    destination_range: "CASE WHEN p.pricing_kind = 'ranged' THEN json_build_object('min', p.range_min, 'max', p.range_max, 'step', p.range_step) END",
    price: [priceSql, (raw: SelectedPrice) => raw && productPriceOf(raw.version, centsFromDbValue(raw.cents), raw.amount)],
    benefits: 'p.benefits',
    requirements: 'p.requirements',
    lookups: 'p.supported_lookups',
  });
}

/** Priced in the current pricing version (joined as `cv` and `pp`); ranged products at their minimum amount. */
const PRICED_PRODUCT = productShape(
  `CASE WHEN pp.vendor_price_cents IS NOT NULL THEN json_build_object('version', cv.id, 'cents', pp.vendor_price_cents::text,
     'amount', CASE WHEN p.pricing_kind = 'ranged' THEN p.range_min ELSE p.destination_amount END) END`,
);

/** Unpriced: the caller prices it (PurchaseCatalogueService.getProduct). */
const PRODUCT = productShape('NULL');

export interface ProductSearch {
  search?: string;
  /** ISO 3166 alpha-3. */
  country?: string;
  operatorId?: number;
  serviceId?: number;
  page: number;
  perPage: number;
}

/** The provider's catalogue as one import writes it. */
export interface CatalogueSnapshot {
  services: Partial<PurchaseServiceEntity>[];
  countries: Partial<PurchaseCountryEntity>[];
  operators: Partial<PurchaseOperatorEntity>[];
  products: Partial<PurchaseProductEntity>[];
  syncedAt: Date;
}

/**
 * The catalogue aggregate: services, countries, operators and products as last synced from the
 * provider (entities in catalogue.entities.ts), and the products enabled per vendor
 * (`purchase_vendor_products`). Vendor-facing reads take the vendor id.
 */
@Injectable()
export class CatalogueRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Writes an import (upsert by provider id) in the caller's transaction; products the snapshot
   * no longer lists are deactivated (kept for history). Returns how many were deactivated.
   */
  async saveSnapshot(manager: EntityManager, snapshot: CatalogueSnapshot): Promise<number> {
    await manager.upsert(PurchaseServiceEntity, snapshot.services, ['id']);
    await manager.upsert(PurchaseCountryEntity, snapshot.countries, ['isoCode']);
    await manager.upsert(PurchaseOperatorEntity, snapshot.operators, ['id']);
    if (snapshot.products.length > 0) await manager.upsert(PurchaseProductEntity, snapshot.products, ['id']);
    const deactivated = await manager.update(
      PurchaseProductEntity,
      { id: Not(In(snapshot.products.map((product) => product.id!).concat([-1]))), active: true },
      { active: false, syncedAt: snapshot.syncedAt },
    );
    return deactivated.affected ?? 0;
  }

  /** Every product still offered, by id (what a pricing version prices). */
  async activeProducts(manager: EntityManager): Promise<PurchaseProductEntity[]> {
    return manager.find(PurchaseProductEntity, { where: { active: true }, order: { id: 'ASC' } });
  }

  /** Of `ids`, those of products still offered. */
  async activeProductIds(ids: number[]): Promise<number[]> {
    const rows = await this.dataSource.query<{ id: number }[]>(`SELECT id FROM purchase_products WHERE active AND id = ANY($1::int[])`, [ids]);
    return rows.map((row) => row.id);
  }

  /** The names of the products `ids` (offered or withdrawn), by id as text: what the pages show instead of bare ids. */
  async productNames(ids: readonly (number | string)[]): Promise<Map<string, string>> {
    return new Map([...(await this.productLabels(ids))].map(([id, label]) => [id, label.name]));
  }

  /** The products `ids` (offered or withdrawn) with their operators' names, by id as text. */
  async productLabels(ids: readonly (number | string)[]): Promise<Map<string, ProductLabel>> {
    const wanted = [...new Set(ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647))];
    if (wanted.length === 0) return new Map();
    const rows = await this.dataSource.query<Array<ProductLabel & { id: number }>>(
      `SELECT p.id, p.name, o.name AS operator FROM purchase_products p JOIN purchase_operators o ON o.id = p.operator_id WHERE p.id = ANY($1::int[])`,
      [wanted],
    );
    return new Map(rows.map((row) => [String(row.id), { name: row.name, operator: row.operator }]));
  }

  /** The products enabled for the vendor, with their operators, by operator and name (a filter's choices). */
  async enabledProductLabels(vendorId: string): Promise<Array<ProductLabel & { id: number }>> {
    return this.dataSource.query(`SELECT p.id, p.name, o.name AS operator ${ENABLED_PRODUCTS} ORDER BY o.name, p.name, p.id`, [vendorId]);
  }

  async product(productId: number): Promise<PurchaseProductEntity> {
    return this.dataSource.manager.findOneByOrFail(PurchaseProductEntity, { id: productId });
  }

  // --- enablement per vendor (staff) ---

  /** Enables the listed products, or every active one when `productIds` is 'all'. Idempotent. */
  async enable(vendorId: string, productIds: 'all' | number[], manager: Queryable = this.dataSource): Promise<void> {
    if (productIds === 'all') {
      await manager.query(
        `INSERT INTO purchase_vendor_products (vendor_id, product_id)
         SELECT $1, id FROM purchase_products WHERE active ON CONFLICT DO NOTHING`,
        [vendorId],
      );
    } else {
      await manager.query(`INSERT INTO purchase_vendor_products (vendor_id, product_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`, [
        vendorId,
        productIds,
      ]);
    }
  }

  async disable(vendorId: string, productIds: 'all' | number[], manager: Queryable = this.dataSource): Promise<void> {
    if (productIds === 'all') await manager.query(`DELETE FROM purchase_vendor_products WHERE vendor_id = $1`, [vendorId]);
    else await manager.query(`DELETE FROM purchase_vendor_products WHERE vendor_id = $1 AND product_id = ANY($2::int[])`, [vendorId, productIds]);
  }

  async enabledProductIds(vendorId: string, manager: Queryable = this.dataSource): Promise<number[]> {
    const rows = await manager.query<{ product_id: number }[]>(`SELECT product_id FROM purchase_vendor_products WHERE vendor_id = $1 ORDER BY product_id`, [
      vendorId,
    ]);
    return rows.map((row) => row.product_id);
  }

  /** Whether the product is enabled for the vendor and still offered. */
  async isEnabled(vendorId: string, productId: number): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT vp.product_id FROM purchase_vendor_products vp JOIN purchase_products p ON p.id = vp.product_id AND p.active
        WHERE vp.vendor_id = $1 AND vp.product_id = $2`,
      [vendorId, productId],
    );
    return rows.length > 0;
  }

  // --- the vendor's catalogue ---

  async services(vendorId: string): Promise<ServiceView[]> {
    return this.dataSource.query<ServiceView[]>(`SELECT DISTINCT s.id, s.name ${ENABLED_PRODUCTS} ORDER BY s.id`, [vendorId]);
  }

  async countries(vendorId: string): Promise<CountryView[]> {
    const rows = await this.dataSource.query<CountryView[]>(
      `SELECT DISTINCT c.iso_code, c.name, c.currency ${ENABLED_PRODUCTS.replace(
        'WHERE',
        'JOIN purchase_countries c ON c.iso_code = p.country_iso_code WHERE',
      )} ORDER BY c.iso_code`,
      [vendorId],
    );
    return rows.map((row) => ({ iso_code: row.iso_code.trim(), name: row.name, currency: row.currency }));
  }

  async operators(vendorId: string): Promise<OperatorView[]> {
    const rows = await this.dataSource.query<OperatorView[]>(`SELECT DISTINCT o.id, o.name, o.country_iso_code ${ENABLED_PRODUCTS} ORDER BY o.id`, [vendorId]);
    return rows.map((row) => ({ ...row, country_iso_code: row.country_iso_code.trim() }));
  }

  async enabledOperatorIds(vendorId: string): Promise<Set<number>> {
    const rows = await this.dataSource.query<{ id: number }[]>(`SELECT DISTINCT o.id ${ENABLED_PRODUCTS}`, [vendorId]);
    return new Set(rows.map((row) => row.id));
  }

  /** One page of the vendor's products with their prices in the current pricing version, and the total. */
  async products(vendorId: string, search: ProductSearch): Promise<{ items: ProductView[]; total: number }> {
    const conditions: string[] = [];
    const parameters: unknown[] = [vendorId];
    // Each `?` of a condition is its one bound value.
    const add = (sql: string, value: unknown) => {
      parameters.push(value);
      conditions.push(sql.replace(/\?/g, `$${parameters.length}`));
    };
    const pattern = search.search?.replace(/[\\%_]/g, (character) => `\\${character}`);
    if (pattern) add('(p.name ILIKE ? OR p.description ILIKE ? OR o.name ILIKE ?)', `%${pattern}%`);
    if (search.country) add('p.country_iso_code = ?', search.country.toUpperCase());
    if (search.operatorId !== undefined) add('p.operator_id = ?', search.operatorId);
    if (search.serviceId !== undefined) add('p.service_id = ?', search.serviceId);
    const where = conditions.map((condition) => ` AND ${condition}`).join('');
    // One round trip for the page, its total and its prices in the current pricing version.
    const rows = await this.dataSource.query<{ total_count: number }[]>(
      `SELECT ${PRICED_PRODUCT.columns}, count(*) OVER ()::int AS total_count
        ${ENABLED_PRODUCTS.replace(
          'WHERE',
          `LEFT JOIN (SELECT max(id) AS id FROM purchase_pricing_versions) cv ON true
           LEFT JOIN purchase_pricing_version_prices pp ON pp.pricing_version_id = cv.id AND pp.product_id = p.id
          WHERE`,
        )}${where} ORDER BY p.id LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, search.perPage, (search.page - 1) * search.perPage],
    );
    // A page past the end has no row to carry the total.
    const total =
      rows[0]?.total_count ??
      (search.page > 1 ? (await this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total ${ENABLED_PRODUCTS}${where}`, parameters))[0].total : 0);
    return { items: rows.map(PRICED_PRODUCT.read), total };
  }

  /** One of the vendor's enabled products; undefined for another vendor's, a disabled or an unknown product. */
  async enabledProduct(vendorId: string, productId: number): Promise<ProductView | undefined> {
    const [row] = await this.dataSource.query<object[]>(`SELECT ${PRODUCT.columns} ${ENABLED_PRODUCTS} AND p.id = $2`, [vendorId, productId]);
    return row ? PRODUCT.read(row) : undefined;
  }
}
