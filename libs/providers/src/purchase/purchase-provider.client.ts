import { ProviderHttpTransport, type ProviderHeaders } from '../http/provider-http-transport.js';
import type { ProviderClientOptions } from '../http/provider-client-options.js';
import { ProviderHttpError } from '../provider-errors.js';
import { SecretValue } from '../secret-value.js';
import { fetchSettlementReport, type SettlementReport } from '../settlement/settlement-report.js';
import { purchaseOutcomeOf, type PurchaseOutcome } from './purchase-outcome.js';
import type {
  ProviderAccountLookup,
  ProviderCountry,
  ProviderEsimBenefitsLookup,
  ProviderEsimStatusLookup,
  ProviderOperator,
  ProviderProduct,
  ProviderService,
  ProviderStatementLookup,
  ProviderTransactionWire,
} from './purchase-provider.wire.js';

export interface ProductListQuery {
  page?: number;
  perPage?: number;
  type?: string;
  countryIsoCode?: string;
  operatorId?: number;
  serviceId?: number;
}

export interface ProductPage {
  items: ProviderProduct[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

export type IdentifierFields = Record<string, string>;

export interface CreatePurchaseTransaction {
  /** Our transaction id; the provider refuses a second transaction with it. */
  externalId: string;
  productId: number;
  /** Ranged products only: the exact destination amount as a decimal string. */
  destinationAmount?: string;
  creditPartyIdentifier?: IdentifierFields;
  debitPartyIdentifier?: IdentifierFields;
  sender?: IdentifierFields;
  beneficiary?: IdentifierFields;
  statementIdentifier?: IdentifierFields;
  additionalIdentifier?: IdentifierFields;
  /** Carries the receiver's secret token: never log it. */
  callbackUrl?: string;
}

export type PurchaseFulfilment =
  | { kind: 'pin'; pin: string; serial: string }
  | { kind: 'esim'; iccid: string; smdpAddress: string; activationCode: string; qrCodePayload: string };

export interface PurchaseProviderTransaction {
  outcome: Exclude<PurchaseOutcome, 'not_found'>;
  providerTransactionId: number;
  externalId: string;
  /** The provider's detailed status, for audit and support. */
  providerStatus: string;
  productId: number;
  destinationAmount: string;
  destinationUnit: string;
  wholesaleAmount: string;
  wholesaleCurrency: string;
  createdAt: string;
  completedAt: string | null;
  reversedAt: string | null;
  /** Present once a PIN or eSIM product is completed. */
  fulfilment: SecretValue<PurchaseFulfilment> | null;
}

export type PurchaseTransactionLookup = PurchaseProviderTransaction | { outcome: 'not_found' };

export interface StatementLookupRequest {
  productId: number;
  accountNumber: string;
  accountQualifier?: string;
}

export interface IdentifierLookupRequest {
  productId: number;
  creditPartyIdentifier: IdentifierFields;
}

const PROVIDER = 'purchase provider';
const ALL_PAGES_LIMIT = 1_000;

/** The DVS-style purchase provider under `{baseUrl}/dvs/v1`. */
export class PurchaseProviderClient {
  private readonly http: ProviderHttpTransport;

  constructor(options: ProviderClientOptions) {
    this.http = new ProviderHttpTransport(PROVIDER, options);
  }

  async listServices(): Promise<ProviderService[]> {
    return (await this.http.get<ProviderService[]>({ operation: op('listServices'), path: '/dvs/v1/services' })).body;
  }

  async listCountries(): Promise<ProviderCountry[]> {
    return (await this.http.get<ProviderCountry[]>({ operation: op('listCountries'), path: '/dvs/v1/countries' })).body;
  }

  async listOperators(): Promise<ProviderOperator[]> {
    return (await this.http.get<ProviderOperator[]>({ operation: op('listOperators'), path: '/dvs/v1/operators' })).body;
  }

  async listProducts(query: ProductListQuery = {}): Promise<ProductPage> {
    const response = await this.http.get<ProviderProduct[]>({
      operation: op('listProducts'),
      path: '/dvs/v1/products',
      query: {
        page: query.page,
        per_page: query.perPage,
        type: query.type,
        country_iso_code: query.countryIsoCode,
        operator_id: query.operatorId,
        service_id: query.serviceId,
      },
    });
    return {
      items: response.body,
      page: headerInteger(response.headers, 'x-page', 'listProducts'),
      perPage: headerInteger(response.headers, 'x-per-page', 'listProducts'),
      total: headerInteger(response.headers, 'x-total', 'listProducts'),
      totalPages: headerInteger(response.headers, 'x-total-pages', 'listProducts'),
    };
  }

  /** Follows every page; the catalogue sync needs all of it or nothing. */
  async listAllProducts(query: Omit<ProductListQuery, 'page'> = {}): Promise<ProviderProduct[]> {
    const products: ProviderProduct[] = [];
    for (let page = 1; page <= ALL_PAGES_LIMIT; page++) {
      const result = await this.listProducts({ perPage: 100, ...query, page });
      products.push(...result.items);
      if (page >= result.totalPages) return products;
    }
    throw new ProviderHttpError(op('listAllProducts'), 200, `more than ${ALL_PAGES_LIMIT} pages`);
  }

  async getProduct(id: number): Promise<ProviderProduct | null> {
    const response = await this.http.get<ProviderProduct>({
      operation: op('getProduct'),
      path: `/dvs/v1/products/${id}`,
      notFoundAsNull: true,
    });
    return response?.body ?? null;
  }

  async lookupMobileNumber(mobileNumber: string, productId?: number): Promise<ProviderOperator[]> {
    return this.lookup<ProviderOperator[]>('mobile-number', { mobile_number: mobileNumber, product_id: productId });
  }

  async lookupStatement(request: StatementLookupRequest): Promise<ProviderStatementLookup> {
    return this.lookup('statement', {
      product_id: request.productId,
      account_number: request.accountNumber,
      account_qualifier: request.accountQualifier,
    });
  }

  async lookupAccount(request: IdentifierLookupRequest): Promise<ProviderAccountLookup> {
    return this.lookup('account', identifierLookupBody(request));
  }

  async lookupEsimBenefits(request: IdentifierLookupRequest): Promise<ProviderEsimBenefitsLookup> {
    return this.lookup('esim-benefits', identifierLookupBody(request));
  }

  async lookupEsimStatus(request: IdentifierLookupRequest): Promise<ProviderEsimStatusLookup> {
    return this.lookup('esim-status', identifierLookupBody(request));
  }

  /**
   * Creates the provider transaction, once. Any error whose `outcomeUnknown` is true
   * (timeout, network, 5xx, 409) must be resolved with findTransactionByExternalId.
   */
  async createTransaction(request: CreatePurchaseTransaction): Promise<PurchaseProviderTransaction> {
    const operation = op('createTransaction');
    const response = await this.http.post<ProviderTransactionWire>(
      { operation, path: '/dvs/v1/transactions' },
      {
        external_id: request.externalId,
        product_id: request.productId,
        auto_confirm: true,
        destination_amount: request.destinationAmount,
        credit_party_identifier: request.creditPartyIdentifier,
        debit_party_identifier: request.debitPartyIdentifier,
        sender: request.sender,
        beneficiary: request.beneficiary,
        statement_identifier: request.statementIdentifier,
        additional_identifier: request.additionalIdentifier,
        callback_url: request.callbackUrl,
      },
    );
    return transactionOf(response.body, operation);
  }

  async getTransaction(providerTransactionId: number): Promise<PurchaseTransactionLookup> {
    const operation = op('getTransaction');
    const response = await this.http.get<ProviderTransactionWire>({
      operation,
      path: `/dvs/v1/transactions/${providerTransactionId}`,
      notFoundAsNull: true,
    });
    return response === null ? { outcome: 'not_found' } : transactionOf(response.body, operation);
  }

  /** The way to resolve an unknown create outcome: our id is the provider's external id. */
  async findTransactionByExternalId(externalId: string): Promise<PurchaseTransactionLookup> {
    const operation = op('findTransactionByExternalId');
    const response = await this.http.get<ProviderTransactionWire[]>({
      operation,
      path: '/dvs/v1/transactions',
      query: { external_id: externalId },
    });
    if (!Array.isArray(response.body)) throw new ProviderHttpError(operation, response.status, 'expected a list');
    const match = response.body.find((transaction) => transaction.external_id === externalId);
    return match === undefined ? { outcome: 'not_found' } : transactionOf(match, operation);
  }

  /** The provider's settlement report of one Johannesburg day (YYYY-MM-DD), every page. */
  async getSettlementReport(day: string): Promise<SettlementReport> {
    return fetchSettlementReport(this.http, op('getSettlementReport'), '/dvs/v1/settlement-reports', day, 'COMPLETED');
  }

  private async lookup<T>(kind: string, body: Record<string, unknown>): Promise<T> {
    return (await this.http.post<T>({ operation: op(`lookup ${kind}`), path: `/dvs/v1/lookups/${kind}` }, body)).body;
  }
}

function op(name: string): string {
  return `${PROVIDER} ${name}`;
}

function identifierLookupBody(request: IdentifierLookupRequest) {
  return { product_id: request.productId, credit_party_identifier: request.creditPartyIdentifier };
}

function headerInteger(headers: ProviderHeaders, name: string, operation: string): number {
  const raw = headers.get(name);
  if (raw === null || !/^\d{1,15}$/.test(raw)) throw new ProviderHttpError(op(operation), 200, `missing or invalid ${name} header`);
  return Number(raw);
}

function transactionOf(wire: ProviderTransactionWire, operation: string): PurchaseProviderTransaction {
  if (typeof wire?.id !== 'number' || typeof wire.status?.class?.message !== 'string') {
    throw new ProviderHttpError(operation, 200, 'transaction without id or status');
  }
  return {
    outcome: purchaseOutcomeOf(wire.status.class.message),
    providerTransactionId: wire.id,
    externalId: wire.external_id,
    providerStatus: wire.status.message,
    productId: wire.product.id,
    destinationAmount: wire.destination.amount,
    destinationUnit: wire.destination.unit,
    wholesaleAmount: wire.prices.wholesale.amount,
    wholesaleCurrency: wire.prices.wholesale.unit,
    createdAt: wire.creation_date,
    completedAt: wire.completion_date ?? null,
    reversedAt: wire.reversal_date ?? null,
    fulfilment: fulfilmentOf(wire),
  };
}

function fulfilmentOf(wire: ProviderTransactionWire): SecretValue<PurchaseFulfilment> | null {
  if (wire.pin) return new SecretValue({ kind: 'pin', pin: wire.pin.code, serial: wire.pin.serial });
  if (wire.esim) {
    return new SecretValue({
      kind: 'esim',
      iccid: wire.esim.iccid,
      smdpAddress: wire.esim.smdp_address,
      activationCode: wire.esim.activation_code,
      qrCodePayload: wire.esim.qr_code_payload,
    });
  }
  return null;
}
