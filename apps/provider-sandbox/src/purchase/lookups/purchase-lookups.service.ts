import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { formatCents } from '#money';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { badRequest } from '../../sandbox-errors.js';
import type { Product, ProductLookup } from '../catalogue/purchase-catalogue.data.js';
import { PurchaseCatalogue } from '../catalogue/purchase-catalogue.service.js';
import { satisfiesFieldSets } from '../requirements.js';

const HOLDER_NAMES = ['Thandi Mokoena', 'Sipho Dlamini', 'Ayanda Nkosi', 'Lerato Molefe', 'Pieter van Wyk', 'Fatima Patel'];
const DAY_MS = 86_400_000;

/**
 * Lookups answer from a hash of the identifier, so the same account always gives the same
 * statement. They never return PINs, serials or activation codes.
 */
@Injectable()
export class PurchaseLookups {
  constructor(
    private readonly catalogue: PurchaseCatalogue,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  mobileNumber(raw: unknown) {
    const body = JsonBody.of(raw);
    const mobileNumber = body.requiredString('mobile_number', /^\+?\d{8,15}$/);
    const productId = body.has('product_id') ? body.requiredInteger('product_id') : undefined;
    const operators = this.catalogue.operatorsForMobileNumber(mobileNumber);
    if (productId === undefined) return operators;
    const product = this.catalogue.requestedProduct(productId);
    return operators.filter((operator) => operator.id === product.operator.id);
  }

  statement(raw: unknown) {
    const body = JsonBody.of(raw);
    const product = this.supportingProduct(body, 'statement');
    const accountNumber = body.requiredString('account_number');
    const seed = seedOf(accountNumber);
    const today = this.today();
    return {
      product_id: product.id,
      account_number: accountNumber,
      account_holder: maskedName(HOLDER_NAMES[seed % HOLDER_NAMES.length]),
      currency: product.destination_currency,
      amount_due: formatCents(BigInt(5_000 + (seed % 250_000))),
      statement_date: isoDate(today - 10 * DAY_MS),
      due_date: isoDate(today + 14 * DAY_MS),
    };
  }

  account(raw: unknown) {
    const body = JsonBody.of(raw);
    const product = this.supportingProduct(body, 'account');
    const identifier = this.creditPartyIdentifier(body, product);
    return {
      product_id: product.id,
      valid: true,
      status: 'ACTIVE',
      account_holder: maskedName(HOLDER_NAMES[seedOf(identifier) % HOLDER_NAMES.length]),
      operator: { id: product.operator.id, name: product.operator.name },
    };
  }

  esimBenefits(raw: unknown) {
    const body = JsonBody.of(raw);
    const product = this.supportingProduct(body, 'esim-benefits');
    const seed = seedOf(this.creditPartyIdentifier(body, product));
    const totalMegabytes = Number(product.benefits.find((benefit) => benefit.type === 'DATA')?.amount ?? '0');
    const validityDays = Number(product.benefits.find((benefit) => benefit.type === 'VALIDITY')?.amount ?? '0');
    return {
      product_id: product.id,
      benefits: [
        { type: 'DATA', unit: 'MB', total: String(totalMegabytes), remaining: String(Math.floor((totalMegabytes * (seed % 101)) / 100)) },
      ],
      expires_at: new Date(this.today() + validityDays * DAY_MS).toISOString(),
    };
  }

  esimStatus(raw: unknown) {
    const body = JsonBody.of(raw);
    const product = this.supportingProduct(body, 'esim-status');
    const seed = seedOf(this.creditPartyIdentifier(body, product));
    const today = this.today();
    const installed = seed % 3 !== 0;
    return {
      product_id: product.id,
      status: installed ? 'INSTALLED' : 'NOT_INSTALLED',
      installation_date: installed ? new Date(today - 3 * DAY_MS).toISOString() : null,
      activation_date: installed && seed % 3 === 1 ? new Date(today - 2 * DAY_MS).toISOString() : null,
    };
  }

  private supportingProduct(body: JsonBody, lookup: ProductLookup): Product {
    const product = this.catalogue.requestedProduct(body.requiredInteger('product_id'));
    if (!product.supported_lookups.includes(lookup)) {
      throw badRequest('LOOKUP_NOT_SUPPORTED', `product ${product.id} does not support the ${lookup} lookup`);
    }
    return product;
  }

  /** The identifier value the lookup is about, after checking it meets the product's requirement. */
  private creditPartyIdentifier(body: JsonBody, product: Product): string {
    const identifier = body.optionalStringRecord('credit_party_identifier');
    if (!identifier || !satisfiesFieldSets(product.required_credit_party_identifier_fields, identifier)) {
      throw badRequest('MISSING_FIELD', 'credit_party_identifier does not meet the product requirements');
    }
    return identifier.mobile_number ?? identifier.account_number ?? Object.values(identifier).join('|');
  }

  private today(): number {
    const now = this.options.clock.now().getTime();
    return now - (now % DAY_MS);
  }
}

function seedOf(value: string): number {
  return createHash('sha256').update(value).digest().readUInt32BE(0);
}

function maskedName(name: string): string {
  return name
    .split(' ')
    .map((word) => word[0] + '*'.repeat(word.length - 1))
    .join(' ');
}

function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}
