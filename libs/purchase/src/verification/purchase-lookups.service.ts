import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '#common';
import { PurchaseProviderClient } from '#providers';
import { pageOf, type Page } from '../model/catalogue-views.js';
import { PurchaseCatalogueService } from '../catalogue/purchase-catalogue.service.js';
import type { PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import { ProductionRelease } from '../catalogue/production-release.js';
import type { AccountLookupView, EsimBenefitsLookupView, EsimStatusLookupView, OperatorLookupView, StatementLookupView } from '../model/lookup-views.js';
import { vendorErrorForProviderFailure } from '../model/purchase-errors.js';

type ProductLookupKind = 'statement' | 'account' | 'esim-benefits' | 'esim-status';

/**
 * Provider lookups within the vendor's catalogue scope. Results are copied field by field, so
 * nothing the provider might add (delivery data included) reaches the vendor by accident.
 */
@Injectable()
export class PurchaseLookupsService {
  constructor(
    private readonly provider: PurchaseProviderClient,
    private readonly catalogue: PurchaseCatalogueService,
    private readonly release: ProductionRelease,
  ) {}

  /**
   * Operators a mobile number may belong to, restricted to operators of the vendor's enabled
   * products (and to the product's operator when `productId` is given). `product_id` is
   * optional, as the contract text says; paginated because the answer is a list.
   */
  async mobileNumber(vendorId: string, mobileNumber: string, productId: number | undefined, page: number, perPage: number): Promise<Page<OperatorLookupView>> {
    await this.release.assertReleased(vendorId);
    if (productId !== undefined) await this.catalogue.requireEnabledProduct(vendorId, productId);
    const enabled = await this.catalogue.enabledOperatorIds(vendorId);
    const operators = await this.provider.lookupMobileNumber(mobileNumber, productId).catch(vendorErrorForProviderFailure);
    const visible = operators
      .filter((operator) => enabled.has(operator.id))
      .map((operator) => ({ id: operator.id, name: operator.name, country_iso_code: operator.country.iso_code }));
    return pageOf(visible.slice((page - 1) * perPage, page * perPage), page, perPage, visible.length);
  }

  async statement(vendorId: string, productId: number, accountNumber: string, accountQualifier?: string): Promise<StatementLookupView> {
    await this.productSupporting(vendorId, productId, 'statement');
    const result = await this.provider.lookupStatement({ productId, accountNumber, accountQualifier }).catch(vendorErrorForProviderFailure);
    return {
      product_id: result.product_id,
      account_number: result.account_number,
      account_holder: result.account_holder,
      currency: result.currency,
      amount_due: result.amount_due,
      statement_date: result.statement_date,
      due_date: result.due_date,
    };
  }

  async account(vendorId: string, productId: number, creditPartyIdentifier: Record<string, string>): Promise<AccountLookupView> {
    await this.productSupporting(vendorId, productId, 'account');
    const result = await this.provider.lookupAccount({ productId, creditPartyIdentifier }).catch(vendorErrorForProviderFailure);
    return {
      product_id: result.product_id,
      valid: result.valid,
      status: result.status,
      account_holder: result.account_holder,
      operator: { id: result.operator.id, name: result.operator.name },
    };
  }

  async esimBenefits(vendorId: string, productId: number, creditPartyIdentifier: Record<string, string>): Promise<EsimBenefitsLookupView> {
    await this.productSupporting(vendorId, productId, 'esim-benefits');
    const result = await this.provider.lookupEsimBenefits({ productId, creditPartyIdentifier }).catch(vendorErrorForProviderFailure);
    return {
      product_id: result.product_id,
      benefits: result.benefits.map((benefit) => ({ type: benefit.type, unit: benefit.unit, total: benefit.total, remaining: benefit.remaining })),
      expires_at: result.expires_at,
    };
  }

  async esimStatus(vendorId: string, productId: number, creditPartyIdentifier: Record<string, string>): Promise<EsimStatusLookupView> {
    await this.productSupporting(vendorId, productId, 'esim-status');
    const result = await this.provider.lookupEsimStatus({ productId, creditPartyIdentifier }).catch(vendorErrorForProviderFailure);
    return {
      product_id: result.product_id,
      status: result.status,
      installation_date: result.installation_date,
      activation_date: result.activation_date,
    };
  }

  private async productSupporting(vendorId: string, productId: number, kind: ProductLookupKind): Promise<PurchaseProductEntity> {
    // Every product lookup passes here first: an unreleased vendor never reaches the provider.
    await this.release.assertReleased(vendorId);
    const product = await this.catalogue.requireEnabledProduct(vendorId, productId);
    if (!product.supportedLookups.includes(kind)) {
      throw new ValidationFailedError({ product_id: [`product ${productId} does not support the ${kind} lookup`] });
    }
    return product;
  }
}
