import { CallbackMarkerEntity } from './callbacks/callback-marker.entity.js';
import {
  PurchaseCountryEntity,
  PurchaseOperatorEntity,
  PurchaseProductEntity,
  PurchaseServiceEntity,
  PurchaseVendorProductEntity,
} from './persistence/catalogue.entities.js';
import { FulfilmentEntity, FulfilmentReadEntity } from './fulfilment/fulfilment.entities.js';
import { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity.js';
import { PricingVersionEntity, PricingVersionPriceEntity } from './persistence/pricing.entities.js';
import { QuoteEntity } from './persistence/quote.entity.js';
import { DailyAllowanceEntity, GlobalPurchaseControlsEntity, SpendControlsEntity } from './spend-controls/spend-controls.entities.js';
import { TransactionEventEntity } from './transactions/transaction-event.entity.js';
import { TransactionEntity } from './transactions/transaction.entity.js';

/** Every table of the purchase domain (registered in libs/database/src/entities.ts). */
export const PURCHASE_ENTITIES = [
  PurchaseServiceEntity,
  PurchaseCountryEntity,
  PurchaseOperatorEntity,
  PurchaseProductEntity,
  PurchaseVendorProductEntity,
  PricingVersionEntity,
  PricingVersionPriceEntity,
  QuoteEntity,
  TransactionEntity,
  TransactionEventEntity,
  IdempotencyKeyEntity,
  SpendControlsEntity,
  GlobalPurchaseControlsEntity,
  DailyAllowanceEntity,
  FulfilmentEntity,
  FulfilmentReadEntity,
  CallbackMarkerEntity,
];
