import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ValidationFailedError } from '#common';
import { centsFromDbValue, MoneyError } from '#money';
import type { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { CatalogueRepository } from '../persistence/catalogue.repository.js';
import type { PricingVersionEntity, PricingVersionPriceEntity } from '../persistence/pricing.entities.js';
import { PricingRepository, type NewVersionPrice } from '../persistence/pricing.repository.js';
import { listedVendorPriceCents, wholesaleCentsOfFixedPrice, type PricingTerms } from '../model/product-pricing.js';

export interface PublishedPricing {
  id: number;
  margin_bps: number;
  product_count: number;
  published_at: string;
}

const MAX_MARGIN_BPS = 100_000;

/** Publishes immutable pricing versions; quotes pin the version they were priced with. */
@Injectable()
export class PurchasePricingService {
  private readonly logger = new Logger(PurchasePricingService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly catalogue: CatalogueRepository,
    private readonly pricing: PricingRepository,
  ) {}

  /**
   * Prices every active product at wholesale plus `marginBps` (1 bp = 0.01 %), as a new version;
   * in the caller's transaction when `into` is given (the staff audit record commits with it).
   */
  async publish(marginBps: number, into?: EntityManager): Promise<PublishedPricing> {
    if (!Number.isSafeInteger(marginBps) || marginBps < 0 || marginBps > MAX_MARGIN_BPS) {
      throw new ValidationFailedError({ margin_bps: [`must be an integer from 0 to ${MAX_MARGIN_BPS}`] });
    }
    const run = <T>(work: (manager: EntityManager) => Promise<T>) => (into ? work(into) : this.dataSource.transaction(work));
    return run(async (manager) => {
      await this.pricing.lockPublication(manager);
      const products = await this.catalogue.activeProducts(manager);
      const prices: NewVersionPrice[] = [];
      for (const product of products) {
        try {
          const terms = termsOfProduct(product, marginBps);
          prices.push({
            ...terms,
            productId: product.id,
            wholesaleCents: terms.wholesaleCents === null ? null : terms.wholesaleCents.toString(),
            vendorPriceCents: listedVendorPriceCents(terms).toString(),
          });
        } catch (error) {
          if (!(error instanceof MoneyError)) throw error;
          this.logger.warn({ productId: product.id, err: error.message }, 'Product left out of the pricing version');
        }
      }
      const version = await this.pricing.saveVersion(manager, marginBps, prices);
      return { id: version.id, margin_bps: marginBps, product_count: prices.length, published_at: version.publishedAt.toISOString() };
    });
  }

  /** The newest published version, or null when pricing was never published. */
  async currentVersion(manager?: EntityManager): Promise<PricingVersionEntity | null> {
    return this.pricing.currentVersion(manager);
  }

  /** Serialises publications until `manager`'s transaction ends (re-entrant within it). */
  lockPublication(manager: EntityManager): Promise<void> {
    return this.pricing.lockPublication(manager);
  }

  /** The newest versions first, the current one first of all. */
  versions(limit = 50): Promise<PricingVersionEntity[]> {
    return this.pricing.versions(limit);
  }

  async termsOf(pricingVersionId: number, productId: number): Promise<PricingTerms | null> {
    const row = await this.pricing.price(pricingVersionId, productId);
    return row ? termsOfPriceRow(row) : null;
  }
}

function termsOfProduct(product: PurchaseProductEntity, marginBps: number): PricingTerms {
  return {
    pricingKind: product.pricingKind,
    marginBps,
    destinationAmount: product.pricingKind === 'fixed' ? product.destinationAmount : null,
    rangeMin: product.rangeMin,
    rangeMax: product.rangeMax,
    rangeStep: product.rangeStep,
    wholesaleCents: product.pricingKind === 'fixed' ? wholesaleCentsOfFixedPrice(product.wholesalePrice!) : null,
    wholesaleRate: product.pricingKind === 'ranged' ? product.wholesaleRate : null,
  };
}

export function termsOfPriceRow(row: PricingVersionPriceEntity): PricingTerms {
  return {
    pricingKind: row.pricingKind,
    marginBps: row.marginBps,
    destinationAmount: row.destinationAmount,
    rangeMin: row.rangeMin,
    rangeMax: row.rangeMax,
    rangeStep: row.rangeStep,
    wholesaleCents: row.wholesaleCents === null ? null : centsFromDbValue(row.wholesaleCents),
    wholesaleRate: row.wholesaleRate,
  };
}
