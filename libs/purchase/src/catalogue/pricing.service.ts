import { Injectable, Logger } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { ValidationFailedError } from '#common';
import { centsFromDbValue, MoneyError, type Cents } from '#money';
import { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { PricingVersionEntity, PricingVersionPriceEntity } from '../persistence/pricing.entities.js';
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
export class PricingService {
  private readonly logger = new Logger(PricingService.name);

  constructor(private readonly dataSource: DataSource) {}

  /** Prices every active product at wholesale plus `marginBps` (1 bp = 0.01 %), as a new version. */
  async publish(marginBps: number): Promise<PublishedPricing> {
    if (!Number.isSafeInteger(marginBps) || marginBps < 0 || marginBps > MAX_MARGIN_BPS) {
      throw new ValidationFailedError({ margin_bps: [`must be an integer from 0 to ${MAX_MARGIN_BPS}`] });
    }
    return this.dataSource.transaction(async (manager) => {
      const products = await manager.find(PurchaseProductEntity, { where: { active: true }, order: { id: 'ASC' } });
      const prices: Omit<PricingVersionPriceEntity, 'pricingVersionId'>[] = [];
      for (const product of products) {
        try {
          const terms = termsOfProduct(product, marginBps);
          prices.push({
            productId: product.id,
            pricingKind: terms.pricingKind,
            marginBps,
            destinationAmount: terms.destinationAmount,
            rangeMin: terms.rangeMin,
            rangeMax: terms.rangeMax,
            rangeStep: terms.rangeStep,
            wholesaleCents: terms.wholesaleCents === null ? null : terms.wholesaleCents.toString(),
            wholesaleRate: terms.wholesaleRate,
            vendorPriceCents: listedVendorPriceCents(terms).toString(),
          });
        } catch (error) {
          if (!(error instanceof MoneyError)) throw error;
          this.logger.warn({ productId: product.id, err: error.message }, 'Product left out of the pricing version');
        }
      }
      const version = await manager.save(
        manager.create(PricingVersionEntity, { marginBps, productCount: prices.length, publishedAt: new Date() }),
      );
      if (prices.length > 0) {
        await manager.insert(
          PricingVersionPriceEntity,
          prices.map((price) => ({ ...price, pricingVersionId: version.id })),
        );
      }
      return { id: version.id, margin_bps: marginBps, product_count: prices.length, published_at: version.publishedAt.toISOString() };
    });
  }

  /** The newest published version, or null when pricing was never published. */
  async currentVersion(manager: EntityManager = this.dataSource.manager): Promise<PricingVersionEntity | null> {
    return manager.findOne(PricingVersionEntity, { where: {}, order: { id: 'DESC' } });
  }

  async termsOf(pricingVersionId: number, productId: number): Promise<PricingTerms | null> {
    const row = await this.dataSource.manager.findOneBy(PricingVersionPriceEntity, { pricingVersionId, productId });
    return row ? termsOfPriceRow(row) : null;
  }

  /** Listed vendor prices of some products in one version. */
  async listedPrices(pricingVersionId: number, productIds: number[]): Promise<Map<number, Cents>> {
    if (productIds.length === 0) return new Map();
    const rows = await this.dataSource.manager.find(PricingVersionPriceEntity, {
      where: { pricingVersionId, productId: In(productIds) },
      select: { productId: true, vendorPriceCents: true },
    });
    return new Map(rows.map((row) => [row.productId, centsFromDbValue(row.vendorPriceCents)]));
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
