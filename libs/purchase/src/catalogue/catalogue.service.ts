import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue } from '#money';
import { PricingService } from './pricing.service.js';
import { ProductUnavailableError } from '../model/quote.errors.js';
import { isUuid } from '../model/uuid-pattern.js';
import { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import {
  pageOf,
  productViewOf,
  type CountryView,
  type OperatorView,
  type Page,
  type ProductRow,
  type ProductView,
  type ServiceView,
} from '../model/catalogue-views.js';

export interface ProductFilter {
  search?: string;
  /** ISO 3166 alpha-3. */
  country?: string;
  operatorId?: number;
  serviceId?: number;
  page: number;
  perPage: number;
}

export interface ProductEnablement {
  vendor_id: string;
  enabled_product_ids: number[];
  enabled_count: number;
}

const PRODUCT_COLUMNS = `
  p.id, p.name, p.description, p.pricing_kind, p.provider_type, p.service_id, s.name AS service_name,
  p.operator_id, o.name AS operator_name, p.country_iso_code, p.fulfilment, p.destination_currency,
  p.destination_amount, p.range_min, p.range_max, p.range_step, p.benefits, p.requirements, p.supported_lookups`;

/** Everything here is read through the vendor's enabled, active products: the vendorId is always the first argument. */
const ENABLED_PRODUCTS = `
  FROM purchase_vendor_products vp
  JOIN purchase_products p ON p.id = vp.product_id AND p.active
  JOIN purchase_services s ON s.id = p.service_id
  JOIN purchase_operators o ON o.id = p.operator_id
  WHERE vp.vendor_id = $1`;

@Injectable()
export class CatalogueService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pricing: PricingService,
  ) {}

  /** Staff: enables every active product (`'all'`) or the listed ids for a vendor. Idempotent. */
  async enableProducts(vendorId: string, products: 'all' | number[]): Promise<ProductEnablement> {
    await this.requireVendor(vendorId);
    if (products === 'all') {
      await this.dataSource.query(
        `INSERT INTO purchase_vendor_products (vendor_id, product_id)
         SELECT $1, id FROM purchase_products WHERE active ON CONFLICT DO NOTHING`,
        [vendorId],
      );
    } else {
      const ids = [...new Set(products)];
      if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        throw new ValidationFailedError({ products: ['must be "all" or a list of positive product ids'] });
      }
      const found: { id: number }[] = await this.dataSource.query(`SELECT id FROM purchase_products WHERE active AND id = ANY($1::int[])`, [ids]);
      const unknown = ids.filter((id) => !found.some((row) => row.id === id));
      if (unknown.length > 0) throw new ValidationFailedError({ products: [`unknown or inactive product ids: ${unknown.join(', ')}`] });
      await this.dataSource.query(
        `INSERT INTO purchase_vendor_products (vendor_id, product_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
        [vendorId, ids],
      );
    }
    return this.enablement(vendorId);
  }

  /** Staff: withdraws products from a vendor; existing quotes and transactions are unaffected. */
  async disableProducts(vendorId: string, products: 'all' | number[]): Promise<ProductEnablement> {
    await this.requireVendor(vendorId);
    if (products === 'all') await this.dataSource.query(`DELETE FROM purchase_vendor_products WHERE vendor_id = $1`, [vendorId]);
    else await this.dataSource.query(`DELETE FROM purchase_vendor_products WHERE vendor_id = $1 AND product_id = ANY($2::int[])`, [vendorId, products]);
    return this.enablement(vendorId);
  }

  async listServices(vendorId: string): Promise<ServiceView[]> {
    return this.dataSource.query(`SELECT DISTINCT s.id, s.name ${ENABLED_PRODUCTS} ORDER BY s.id`, [vendorId]);
  }

  async listCountries(vendorId: string): Promise<CountryView[]> {
    const rows: { iso_code: string; name: string; currency: string | null }[] = await this.dataSource.query(
      `SELECT DISTINCT c.iso_code, c.name, c.currency ${ENABLED_PRODUCTS.replace(
        'WHERE',
        'JOIN purchase_countries c ON c.iso_code = p.country_iso_code WHERE',
      )} ORDER BY c.iso_code`,
      [vendorId],
    );
    return rows.map((row) => ({ iso_code: row.iso_code.trim(), name: row.name, currency: row.currency }));
  }

  async listOperators(vendorId: string): Promise<OperatorView[]> {
    const rows: { id: number; name: string; country_iso_code: string }[] = await this.dataSource.query(
      `SELECT DISTINCT o.id, o.name, o.country_iso_code ${ENABLED_PRODUCTS} ORDER BY o.id`,
      [vendorId],
    );
    return rows.map((row) => ({ ...row, country_iso_code: row.country_iso_code.trim() }));
  }

  /** Operator ids the vendor has at least one enabled product of (mobile lookups are filtered by it). */
  async enabledOperatorIds(vendorId: string): Promise<Set<number>> {
    const rows: { id: number }[] = await this.dataSource.query(`SELECT DISTINCT o.id ${ENABLED_PRODUCTS}`, [vendorId]);
    return new Set(rows.map((row) => row.id));
  }

  async listProducts(vendorId: string, filter: ProductFilter): Promise<Page<ProductView>> {
    const conditions: string[] = [];
    const parameters: unknown[] = [vendorId];
    if (filter.search) {
      parameters.push(`%${filter.search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`);
      conditions.push(`(p.name ILIKE $${parameters.length} OR p.description ILIKE $${parameters.length} OR o.name ILIKE $${parameters.length})`);
    }
    if (filter.country) {
      parameters.push(filter.country.toUpperCase());
      conditions.push(`p.country_iso_code = $${parameters.length}`);
    }
    if (filter.operatorId !== undefined) {
      parameters.push(filter.operatorId);
      conditions.push(`p.operator_id = $${parameters.length}`);
    }
    if (filter.serviceId !== undefined) {
      parameters.push(filter.serviceId);
      conditions.push(`p.service_id = $${parameters.length}`);
    }
    const where = conditions.map((condition) => ` AND ${condition}`).join('');
    // One round trip for the page, its total and its prices in the current pricing version.
    const rows: (ProductRow & { total_count: number; price_version_id: number | null; price_cents: string | null })[] = await this.dataSource.query(
      `SELECT ${PRODUCT_COLUMNS}, count(*) OVER ()::int AS total_count, cv.id AS price_version_id, pp.vendor_price_cents AS price_cents
        ${ENABLED_PRODUCTS.replace(
          'WHERE',
          `LEFT JOIN (SELECT max(id) AS id FROM purchase_pricing_versions) cv ON true
           LEFT JOIN purchase_pricing_version_prices pp ON pp.pricing_version_id = cv.id AND pp.product_id = p.id
          WHERE`,
        )}${where} ORDER BY p.id LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, filter.perPage, (filter.page - 1) * filter.perPage],
    );
    // A page past the end has no row to carry the total.
    const total =
      rows[0]?.total_count ??
      (filter.page > 1 ? (await this.dataSource.query(`SELECT count(*)::int AS total ${ENABLED_PRODUCTS}${where}`, parameters))[0].total : 0);
    const items = rows.map((row) =>
      productViewOf(row, row.price_version_id !== null && row.price_cents !== null ? { versionId: row.price_version_id, cents: centsFromDbValue(row.price_cents) } : null),
    );
    return pageOf(items, filter.page, filter.perPage, total);
  }

  /** One enabled product; another vendor's or a disabled product answers 404 like an unknown id. */
  async getProduct(vendorId: string, productId: number): Promise<ProductView> {
    const rows: ProductRow[] = await this.dataSource.query(`SELECT ${PRODUCT_COLUMNS} ${ENABLED_PRODUCTS} AND p.id = $2`, [vendorId, productId]);
    if (rows.length === 0) throw new NotFoundError('product');
    return (await this.withPrices(rows))[0];
  }

  /** The product, if enabled for the vendor and still offered; otherwise PRODUCT_UNAVAILABLE. */
  async requireEnabledProduct(vendorId: string, productId: number): Promise<PurchaseProductEntity> {
    const rows: { product_id: number }[] = await this.dataSource.query(
      `SELECT vp.product_id FROM purchase_vendor_products vp JOIN purchase_products p ON p.id = vp.product_id AND p.active
        WHERE vp.vendor_id = $1 AND vp.product_id = $2`,
      [vendorId, productId],
    );
    if (rows.length === 0) throw new ProductUnavailableError();
    return this.dataSource.manager.findOneByOrFail(PurchaseProductEntity, { id: productId });
  }

  private async withPrices(rows: ProductRow[]): Promise<ProductView[]> {
    const version = await this.pricing.currentVersion();
    const prices = version ? await this.pricing.listedPrices(version.id, rows.map((row) => row.id)) : new Map<number, bigint>();
    return rows.map((row) => {
      const cents = prices.get(row.id);
      return productViewOf(row, version && cents !== undefined ? { versionId: version.id, cents } : null);
    });
  }

  private async enablement(vendorId: string): Promise<ProductEnablement> {
    const rows: { product_id: number }[] = await this.dataSource.query(
      `SELECT product_id FROM purchase_vendor_products WHERE vendor_id = $1 ORDER BY product_id`,
      [vendorId],
    );
    return { vendor_id: vendorId, enabled_product_ids: rows.map((row) => row.product_id), enabled_count: rows.length };
  }

  private async requireVendor(vendorId: string): Promise<void> {
    if (!isUuid(vendorId)) throw new NotFoundError('vendor');
    const rows = await this.dataSource.query(`SELECT 1 FROM vendors WHERE id = $1`, [vendorId]);
    if (rows.length === 0) throw new NotFoundError('vendor');
  }
}
