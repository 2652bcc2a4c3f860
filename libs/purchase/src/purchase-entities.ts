import { PurchaseCountryEntity, PurchaseOperatorEntity, PurchaseProductEntity, PurchaseServiceEntity } from './persistence/catalogue.entities.js';
import { PricingVersionEntity, PricingVersionPriceEntity } from './persistence/pricing.entities.js';

/**
 * The purchase tables the code reads or writes through TypeORM's entity API (catalogue upserts,
 * pricing publication), registered with the data source so those calls find their metadata.
 * The migrations define every table; the other purchase tables (quotes, transactions, their
 * events, callback markers, fulfilments, idempotency keys, spend controls, allowances) are used
 * through their repository's SQL alone and have no entity class.
 */
export const PURCHASE_ENTITIES = [
  PurchaseServiceEntity,
  PurchaseCountryEntity,
  PurchaseOperatorEntity,
  PurchaseProductEntity,
  PricingVersionEntity,
  PricingVersionPriceEntity,
];
