import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { centsFromDbValue, type Cents } from '#money';
import { PricingVersionEntity, PricingVersionPriceEntity } from './pricing.entities.js';

/** One product's price as a version freezes it (the version id is added on save). */
export type NewVersionPrice = Omit<PricingVersionPriceEntity, 'pricingVersionId'>;

/** The pricing aggregate: immutable versions and their per-product prices (entities in pricing.entities.ts). */
@Injectable()
export class PricingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Saves a new version with its prices in the caller's transaction. */
  async saveVersion(manager: EntityManager, marginBps: number, prices: NewVersionPrice[]): Promise<PricingVersionEntity> {
    const version = await manager.save(manager.create(PricingVersionEntity, { marginBps, productCount: prices.length, publishedAt: new Date() }));
    if (prices.length > 0) {
      await manager.insert(
        PricingVersionPriceEntity,
        prices.map((price) => ({ ...price, pricingVersionId: version.id })),
      );
    }
    return version;
  }

  /** The newest published version, or null when pricing was never published. */
  async currentVersion(manager: EntityManager = this.dataSource.manager): Promise<PricingVersionEntity | null> {
    return manager.findOne(PricingVersionEntity, { where: {}, order: { id: 'DESC' } });
  }

  /** Serialises publications until the caller's transaction ends (so each knows the version it replaces). */
  async lockPublication(manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('pricing.publish'))`);
  }

  /** The newest versions first (staff's pricing page); the first is the current one. */
  async versions(limit: number): Promise<PricingVersionEntity[]> {
    return this.dataSource.manager.find(PricingVersionEntity, { order: { id: 'DESC' }, take: limit });
  }

  async price(pricingVersionId: number, productId: number): Promise<PricingVersionPriceEntity | null> {
    return this.dataSource.manager.findOneBy(PricingVersionPriceEntity, { pricingVersionId, productId });
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
