import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape } from '#database';
import { minorUnitsColumn } from '#money';
import type { IdentifierGroups, ProductBenefit } from '../model/catalogue-types.js';
import type { QuoteView } from '../model/quote-view.js';

/** A priced quote as it is stored; money in ZAR cents. */
export interface NewQuote {
  id: string;
  vendorId: string;
  productId: number;
  pricingVersionId: number;
  chargeCents: bigint;
  wholesaleCents: bigint;
  destinationAmount: string;
  destinationUnit: string;
  benefits: ProductBenefit[];
  budgetCents: bigint | null;
  unusedBudgetCents: bigint;
  identifiers: IdentifierGroups;
  validitySeconds: number;
}

/** The Quote resource as the vendor-facing read selects it (alias `q`). */
const VIEW = readShape<QuoteView>({
  id: 'q.id',
  product_id: 'q.product_id',
  pricing_version_id: 'q.pricing_version_id',
  charge_minor: minorUnitsColumn('q.charge_cents'),
  currency: 'q.currency',
  destination_amount: 'q.destination_amount',
  destination_unit: 'q.destination_unit',
  benefits: 'q.benefits',
  unused_budget_minor: minorUnitsColumn('q.unused_budget_cents'),
  expires_at: ['q.expires_at', (raw: Date) => raw.toISOString()],
});

/**
 * `purchase_quotes` (the migrations define it; no entity: both statements here are SQL). A
 * quote's use is written by the admission statement in TransactionRepository, in the same
 * statement as the transaction it funds.
 */
@Injectable()
export class QuotesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores the quote, valid from the database's now for `validitySeconds`; returns its id. */
  async insert(quote: NewQuote): Promise<string> {
    const [row] = await this.dataSource.query<{ id: string }[]>(
      `INSERT INTO purchase_quotes (id, vendor_id, product_id, pricing_version_id, charge_cents, wholesale_cents, currency,
         destination_amount, destination_unit, benefits, budget_cents, unused_budget_cents, identifiers, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'ZAR', $7, $8, $9::jsonb, $10, $11, $12::jsonb, now() + make_interval(secs => $13))
       RETURNING id`,
      [
        quote.id,
        quote.vendorId,
        quote.productId,
        quote.pricingVersionId,
        quote.chargeCents.toString(),
        quote.wholesaleCents.toString(),
        quote.destinationAmount,
        quote.destinationUnit,
        JSON.stringify(quote.benefits),
        quote.budgetCents === null ? null : quote.budgetCents.toString(),
        quote.unusedBudgetCents.toString(),
        JSON.stringify(quote.identifiers),
        quote.validitySeconds,
      ],
    );
    return row.id;
  }

  /** The vendor's own quote; undefined for another vendor's id as for an unknown one. */
  async view(vendorId: string, quoteId: string): Promise<QuoteView | undefined> {
    const [row] = await this.dataSource.query<object[]>(
      `SELECT ${VIEW.columns} FROM purchase_quotes q WHERE q.id = $1 AND q.vendor_id = $2`,
      [quoteId, vendorId],
    );
    return row ? VIEW.read(row) : undefined;
  }
}
