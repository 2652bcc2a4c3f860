import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '#common';
import type { Cents } from '#money';
import { PurchaseCatalogueService } from '../catalogue/purchase-catalogue.service.js';
import type { ProductBenefit, IdentifierGroups } from '../model/catalogue-types.js';
import type { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { PurchasePricingService } from '../catalogue/purchase-pricing.service.js';
import { priceAmount } from '../model/product-pricing.js';
import { ProductionRelease } from '../catalogue/production-release.js';
import { isUuid } from '../model/uuid-pattern.js';
import { QuotesRepository } from '../persistence/quotes.repository.js';
import { PricingUnpublishedError, ProductUnavailableError } from '../model/purchase-errors.js';
import type { QuoteView } from '../model/quote-view.js';
import { unmetRequirements } from '../model/requirements.js';

/** Contract: a quote is valid for five minutes. */
export const QUOTE_VALIDITY_SECONDS = 300;

export interface QuoteRequest {
  productId: number;
  destinationAmount?: string;
  budgetCents?: Cents;
  identifiers: IdentifierGroups;
}

/**
 * Prices a purchase for one vendor from the current pricing version. It does not call the
 * provider, but a quote is the first step of a provider purchase, so unreleased vendors are
 * refused here as they are on purchases.
 */
@Injectable()
export class PurchaseQuoteService {
  constructor(
    private readonly quotes: QuotesRepository,
    private readonly catalogue: PurchaseCatalogueService,
    private readonly pricing: PurchasePricingService,
    private readonly release: ProductionRelease,
  ) {}

  async create(vendorId: string, request: QuoteRequest): Promise<QuoteView> {
    await this.release.assertReleased(vendorId);
    const product = await this.catalogue.requireEnabledProduct(vendorId, request.productId);
    const version = await this.pricing.currentVersion();
    if (!version) throw new PricingUnpublishedError();
    const terms = await this.pricing.termsOf(version.id, product.id);
    if (!terms) throw new ProductUnavailableError('The product is not priced in the current pricing version');

    const missing = unmetRequirements(product.requirements, request.identifiers);
    if (Object.keys(missing).length > 0) throw new ValidationFailedError(missing);
    const price = priceAmount(terms, { destinationAmount: request.destinationAmount, budgetCents: request.budgetCents });

    const quoteId = await this.quotes.insert({
      id: randomUUID(),
      vendorId,
      productId: product.id,
      pricingVersionId: version.id,
      chargeCents: price.chargeCents,
      wholesaleCents: price.wholesaleCents,
      destinationAmount: price.destinationAmount,
      destinationUnit: product.destinationCurrency,
      benefits: benefitsFor(product, price.destinationAmount),
      budgetCents: request.budgetCents ?? null,
      unusedBudgetCents: price.unusedBudgetCents,
      identifiers: request.identifiers,
      validitySeconds: QUOTE_VALIDITY_SECONDS,
    });
    return this.get(vendorId, quoteId);
  }

  /** The vendor's own quote; another vendor's id answers 404 exactly like an unknown one. */
  async get(vendorId: string, quoteId: string): Promise<QuoteView> {
    if (!isUuid(quoteId)) throw new NotFoundError('quote');
    const quote = await this.quotes.view(vendorId, quoteId);
    if (!quote) throw new NotFoundError('quote');
    return quote;
  }
}

/**
 * Ranged products list benefits at their minimum; a quote states what this amount buys, so a
 * benefit counted in the destination currency is the quoted amount itself.
 */
function benefitsFor(product: PurchaseProductEntity, destinationAmount: string): ProductBenefit[] {
  if (product.pricingKind === 'fixed') return product.benefits;
  return product.benefits.map((benefit) =>
    benefit.unit === product.destinationCurrency ? { ...benefit, amount: destinationAmount } : benefit,
  );
}
