import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import type { Cents } from '#money';
import { CatalogueService } from '../catalogue/catalogue.service.js';
import type { ProductBenefit, IdentifierGroups } from '../model/catalogue-types.js';
import type { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { PricingUnpublishedError } from '../model/pricing.errors.js';
import { PricingService } from '../catalogue/pricing.service.js';
import { priceAmount } from '../model/product-pricing.js';
import { ProductionRelease } from '../catalogue/production-release.js';
import { isUuid } from '../model/uuid-pattern.js';
import { QuoteEntity } from '../persistence/quote.entity.js';
import { ProductUnavailableError } from '../model/quote.errors.js';
import { quoteViewOf, type QuoteView } from '../model/quote-view.js';
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
export class QuoteService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly pricing: PricingService,
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

    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `INSERT INTO purchase_quotes (id, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency,
         destination_amount, destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'ZAR', $7, $8, $9::jsonb, $10, $11, $12::jsonb, now() + make_interval(secs => $13))
       RETURNING id`,
      [
        randomUUID(),
        vendorId,
        product.id,
        version.id,
        price.chargeCents.toString(),
        price.wholesaleCents.toString(),
        price.destinationAmount,
        product.destinationCurrency,
        JSON.stringify(benefitsFor(product, price.destinationAmount)),
        request.budgetCents === undefined ? null : request.budgetCents.toString(),
        price.unusedBudgetCents.toString(),
        JSON.stringify(request.identifiers),
        QUOTE_VALIDITY_SECONDS,
      ],
    );
    return this.get(vendorId, rows[0].id as string);
  }

  /** The vendor's own quote; another vendor's id answers 404 exactly like an unknown one. */
  async get(vendorId: string, quoteId: string): Promise<QuoteView> {
    if (!isUuid(quoteId)) throw new NotFoundError('quote');
    const quote = await this.dataSource.manager.findOneBy(QuoteEntity, { id: quoteId, vendorId });
    if (!quote) throw new NotFoundError('quote');
    return quoteViewOf(quote);
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
