import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { VendorDirectory } from '#auth';
import { ValidationFailedError } from '#common';
import { pageOf, productPriceOf, type CountryView, type OperatorView, type Page, type ProductLabel, type ProductView, type ServiceView } from '../model/catalogue-views.js';
import { ProductUnavailableError } from '../model/purchase-errors.js';
import type { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { CatalogueRepository, type ProductSearch } from '../persistence/catalogue.repository.js';
import { PricingRepository } from '../persistence/pricing.repository.js';

export interface ProductEnablement {
  vendor_id: string;
  enabled_product_ids: number[];
  enabled_count: number;
}

/** Everything here is read through the vendor's enabled, active products: the vendorId is always the first argument. */
@Injectable()
export class PurchaseCatalogueService {
  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly pricing: PricingRepository,
    private readonly vendors: VendorDirectory,
  ) {}

  /** The names of the products `ids` (offered or withdrawn), by id as text: what the pages show instead of bare ids. */
  async productNames(ids: readonly (number | string)[]): Promise<Map<string, string>> {
    return this.catalogue.productNames(ids);
  }

  /** The products `ids` (offered or withdrawn) with their operators' names, by id as text. */
  async productLabels(ids: readonly (number | string)[]): Promise<Map<string, ProductLabel>> {
    return this.catalogue.productLabels(ids);
  }

  /** The products enabled for the vendor, with their operators, by operator and name (a filter's choices). */
  async enabledProductLabels(vendorId: string): Promise<Array<ProductLabel & { id: number }>> {
    return this.catalogue.enabledProductLabels(vendorId);
  }

  /** Staff: enables every active product (`'all'`) or the listed ids for a vendor. Idempotent. `manager`: the caller's transaction (the staff audit record commits with the change). */
  async enableProducts(vendorId: string, products: 'all' | number[], manager?: EntityManager): Promise<ProductEnablement> {
    await this.vendors.requireExists(vendorId, manager);
    if (products === 'all') {
      await this.catalogue.enable(vendorId, 'all', manager);
    } else {
      const ids = [...new Set(products)];
      if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        throw new ValidationFailedError({ products: ['must be "all" or a list of positive product ids'] });
      }
      const found = await this.catalogue.activeProductIds(ids);
      const unknown = ids.filter((id) => !found.includes(id));
      if (unknown.length > 0) throw new ValidationFailedError({ products: [`unknown or inactive product ids: ${unknown.join(', ')}`] });
      await this.catalogue.enable(vendorId, ids, manager);
    }
    return this.enablement(vendorId, manager);
  }

  /** Staff: withdraws products from a vendor; existing quotes and transactions are unaffected. */
  async disableProducts(vendorId: string, products: 'all' | number[], manager?: EntityManager): Promise<ProductEnablement> {
    await this.vendors.requireExists(vendorId, manager);
    await this.catalogue.disable(vendorId, products, manager);
    return this.enablement(vendorId, manager);
  }

  async listServices(vendorId: string): Promise<ServiceView[]> {
    return this.catalogue.services(vendorId);
  }

  async listCountries(vendorId: string): Promise<CountryView[]> {
    return this.catalogue.countries(vendorId);
  }

  async listOperators(vendorId: string): Promise<OperatorView[]> {
    return this.catalogue.operators(vendorId);
  }

  /** Operator ids the vendor has at least one enabled product of (mobile lookups are filtered by it). */
  async enabledOperatorIds(vendorId: string): Promise<Set<number>> {
    return this.catalogue.enabledOperatorIds(vendorId);
  }

  async listProducts(vendorId: string, filter: ProductSearch): Promise<Page<ProductView>> {
    const { items, total } = await this.catalogue.products(vendorId, filter);
    return pageOf(items, filter.page, filter.perPage, total);
  }

  /**
   * One enabled product. A product not enabled for the vendor (withdrawn, no longer offered, or
   * an id the catalogue does not have) is PRODUCT_UNAVAILABLE, the contract's "refresh catalogue",
   * the same answer as a quote for it gets.
   */
  async getProduct(vendorId: string, productId: number): Promise<ProductView> {
    const product = await this.catalogue.enabledProduct(vendorId, productId);
    if (!product) throw new ProductUnavailableError();
    const version = await this.pricing.currentVersion();
    const cents = version ? (await this.pricing.listedPrices(version.id, [product.id])).get(product.id) : undefined;
    if (!version || cents === undefined) return product;
    // Priced like a page's product: a ranged one at its minimum amount.
    return { ...product, price: productPriceOf(version.id, cents, product.destination_range?.min ?? product.destination_amount!) };
  }

  /** The product, if enabled for the vendor and still offered; otherwise PRODUCT_UNAVAILABLE. */
  async requireEnabledProduct(vendorId: string, productId: number): Promise<PurchaseProductEntity> {
    if (!(await this.catalogue.isEnabled(vendorId, productId))) throw new ProductUnavailableError();
    return this.catalogue.product(productId);
  }

  private async enablement(vendorId: string, manager?: EntityManager): Promise<ProductEnablement> {
    const ids = await this.catalogue.enabledProductIds(vendorId, manager);
    return { vendor_id: vendorId, enabled_product_ids: ids, enabled_count: ids.length };
  }
}
