import { Injectable } from '@nestjs/common';
import { CachedResult } from '#common';
import { ChangeNotifications, ExactCache } from '#database';
import type { CountryView, OperatorView, Page, ProductView, ServiceView } from '../model/catalogue-views.js';
import type { ProductSearch } from '../persistence/catalogue.repository.js';
import { PurchaseCatalogueService } from './purchase-catalogue.service.js';

/** Channel of the triggers on the catalogue, enablement and pricing tables (migration ChangeNotifications1763781400000). */
export const PURCHASE_CATALOGUE_CHANGED = 'purchase_catalogue_changed';

type CatalogueRead = Page<ProductView> | ProductView | ServiceView[] | CountryView[] | OperatorView[];

/**
 * The vendor-facing catalogue reads of the purchase gateway (GET /products, /products/{id},
 * /services, /countries, /operators), cached in process. The catalogue changes only when staff
 * enable or withdraw products, a catalogue import runs or a pricing version is published; each of
 * those commits a notification that empties the cache (ExactCache), so a read never shows a price,
 * product or enablement that is no longer current. Keyed by vendor and the exact query.
 *
 * Each entry is a CachedResult, so the gateway serialises its response body once per entry and
 * a hit sends that text again; an invalidation drops the entry and with it the text.
 */
@Injectable()
export class CatalogueReadCache {
  private readonly cache: ExactCache<CachedResult<CatalogueRead>>;

  constructor(
    private readonly catalogue: PurchaseCatalogueService,
    notifications: ChangeNotifications,
  ) {
    this.cache = new ExactCache(notifications, { channels: [PURCHASE_CATALOGUE_CHANGED], maxEntries: 5_000 });
  }

  listProducts(vendorId: string, filter: ProductSearch): Promise<CachedResult<Page<ProductView>>> {
    const key = ['products', vendorId, filter.search ?? '', filter.country ?? '', filter.operatorId ?? '', filter.serviceId ?? '', filter.page, filter.perPage];
    return this.read(key, () => this.catalogue.listProducts(vendorId, filter));
  }

  /** A product not enabled for the vendor throws ProductUnavailableError from the service and is not cached. */
  getProduct(vendorId: string, productId: number): Promise<CachedResult<ProductView>> {
    return this.read(['product', vendorId, productId], () => this.catalogue.getProduct(vendorId, productId));
  }

  listServices(vendorId: string): Promise<CachedResult<ServiceView[]>> {
    return this.read(['services', vendorId], () => this.catalogue.listServices(vendorId));
  }

  listCountries(vendorId: string): Promise<CachedResult<CountryView[]>> {
    return this.read(['countries', vendorId], () => this.catalogue.listCountries(vendorId));
  }

  listOperators(vendorId: string): Promise<CachedResult<OperatorView[]>> {
    return this.read(['operators', vendorId], () => this.catalogue.listOperators(vendorId));
  }

  /** For tests and metrics. */
  get stats() {
    return this.cache.stats;
  }

  private async read<T extends CatalogueRead>(key: readonly unknown[], load: () => Promise<T>): Promise<CachedResult<T>> {
    return (await this.cache.get(JSON.stringify(key), async () => new CachedResult(await load()))) as CachedResult<T>;
  }
}
