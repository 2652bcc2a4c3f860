import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PurchaseProviderClient, type ProviderProduct } from '#providers';
import { vendorErrorForProviderFailure } from '../model/purchase-errors.js';
import { CatalogueRepository } from '../persistence/catalogue.repository.js';
import type { PurchaseCountryEntity, PurchaseProductEntity } from '../persistence/catalogue.entities.js';
import type { ProductRequirements } from '../model/catalogue-types.js';

export interface CatalogueSyncResult {
  services: number;
  countries: number;
  operators: number;
  products: number;
  /** Products the provider no longer lists; they stay for history but cannot be quoted. */
  deactivated: number;
}

/** Imports the provider's catalogue (upsert by provider id) in one database transaction. */
@Injectable()
export class PurchaseCatalogueSyncService {
  private readonly logger = new Logger(PurchaseCatalogueSyncService.name);

  constructor(
    private readonly provider: PurchaseProviderClient,
    private readonly dataSource: DataSource,
    private readonly catalogue: CatalogueRepository,
  ) {}

  async sync(): Promise<CatalogueSyncResult> {
    // Read everything first: a provider failure halfway must not leave a half-synced catalogue.
    const [services, countries, operators, products] = await Promise.all([
      this.provider.listServices(),
      this.provider.listCountries(),
      this.provider.listOperators(),
      this.provider.listAllProducts(),
    ]).catch(vendorErrorForProviderFailure);
    const now = new Date();

    return this.dataSource.transaction(async (manager) => {
      const countryRows = new Map<string, Partial<PurchaseCountryEntity>>();
      for (const operator of operators) {
        countryRows.set(operator.country.iso_code, { isoCode: operator.country.iso_code, name: operator.country.name, currency: null, syncedAt: now });
      }
      for (const country of countries) {
        countryRows.set(country.iso_code, { isoCode: country.iso_code, name: country.name, currency: country.currency, syncedAt: now });
      }
      const usable = products.filter((product) => this.isUsable(product));
      const deactivated = await this.catalogue.saveSnapshot(manager, {
        services: services.map((service) => ({ id: service.id, name: service.name, syncedAt: now })),
        countries: [...countryRows.values()],
        operators: operators.map((operator) => ({
          id: operator.id,
          name: operator.name,
          countryIsoCode: operator.country.iso_code,
          mobilePrefixes: operator.mobile_prefixes ?? [],
          syncedAt: now,
        })),
        products: usable.map((product) => productRow(product, now)),
        syncedAt: now,
      });
      const result = {
        services: services.length,
        countries: countryRows.size,
        operators: operators.length,
        products: usable.length,
        deactivated,
      };
      this.logger.log(result, 'Catalogue synced');
      return result;
    });
  }

  /** A product we could not price exactly is left out rather than guessed at. */
  private isUsable(product: ProviderProduct): boolean {
    const fixedOk = product.destination_range === null && product.destination_amount !== null && product.wholesale_price !== null;
    const rangedOk = product.destination_range !== null && product.wholesale_rate !== null;
    if (!fixedOk && !rangedOk) this.logger.warn({ productId: product.id }, 'Skipping a product without usable pricing terms');
    return fixedOk || rangedOk;
  }
}

function productRow(product: ProviderProduct, now: Date): Partial<PurchaseProductEntity> {
  const requirements: ProductRequirements = {
    credit_party_identifier: product.required_credit_party_identifier_fields ?? [],
    debit_party_identifier: product.required_debit_party_identifier_fields ?? [],
    sender: product.required_sender_fields ?? [],
    beneficiary: product.required_beneficiary_fields ?? [],
    statement_identifier: product.required_statement_identifier_fields ?? [],
    additional_identifier: product.required_additional_identifier_fields ?? [],
  };
  const ranged = product.destination_range !== null;
  return {
    id: product.id,
    name: product.name,
    description: product.description ?? '',
    providerType: product.type,
    pricingKind: ranged ? 'ranged' : 'fixed',
    serviceId: product.service.id,
    operatorId: product.operator.id,
    countryIsoCode: product.operator.country.iso_code,
    destinationCurrency: product.destination_currency,
    destinationAmount: ranged ? null : product.destination_amount,
    rangeMin: product.destination_range?.min ?? null,
    rangeMax: product.destination_range?.max ?? null,
    rangeStep: product.destination_range?.step ?? null,
    wholesalePrice: ranged ? null : product.wholesale_price,
    wholesaleRate: ranged ? product.wholesale_rate : null,
    benefits: product.benefits.map((benefit) => ({ type: benefit.type, unit: benefit.unit, amount: benefit.amount })),
    fulfilment: product.fulfilment === 'PIN' ? 'pin' : product.fulfilment === 'ESIM' ? 'esim' : 'none',
    supportedLookups: [...(product.supported_lookups ?? [])],
    requirements,
    active: true,
    syncedAt: now,
  };
}
