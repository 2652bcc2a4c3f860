import { Injectable } from '@nestjs/common';
import type { ProductListQuery, ProviderOperator } from '#providers';
import { badRequest } from '../../sandbox-errors.js';
import { OPERATORS, PRODUCTS, type Product } from './purchase-catalogue.data.js';

@Injectable()
export class PurchaseCatalogue {
  private readonly productsById = new Map(PRODUCTS.map((product) => [product.id, product]));

  /** The products matching the filters of the client's product list query. */
  products(filter: Omit<ProductListQuery, 'page' | 'perPage'>): Product[] {
    return PRODUCTS.filter(
      (product) =>
        (filter.type === undefined || product.type === filter.type) &&
        (filter.countryIsoCode === undefined || product.operator.country.iso_code === filter.countryIsoCode) &&
        (filter.operatorId === undefined || product.operator.id === filter.operatorId) &&
        (filter.serviceId === undefined || product.service.id === filter.serviceId),
    );
  }

  product(id: number): Product | undefined {
    return this.productsById.get(id);
  }

  /** The product a request names, or the provider's 400 for an id it does not know. */
  requestedProduct(id: number): Product {
    const product = this.product(id);
    if (!product) throw badRequest('PRODUCT_NOT_FOUND', `product ${id} does not exist`);
    return product;
  }

  /** Operators whose prefix starts the number, longest prefix first (the likeliest operator). */
  operatorsForMobileNumber(mobileNumber: string): ProviderOperator[] {
    const digits = mobileNumber.replace(/\D/g, '');
    return OPERATORS.map((operator) => ({
      operator,
      longest: Math.max(0, ...operator.mobile_prefixes.filter((prefix) => digits.startsWith(prefix)).map((prefix) => prefix.length)),
    }))
      .filter(({ longest }) => longest > 0)
      .sort((a, b) => b.longest - a.longest)
      .map(({ operator }) => operator);
  }
}
