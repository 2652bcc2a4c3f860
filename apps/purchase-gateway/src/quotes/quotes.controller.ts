import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { centsFromMinorUnits } from '#money';
import { PurchaseQuoteService, REQUIREMENT_GROUPS, type IdentifierGroups } from '#purchase';
import { CreateQuoteBody, REQUIREMENT_GROUP_SCHEMA } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { QuoteSchema } from './quotes.schemas.js';

const QUOTE_BASE = {
  product_id: { type: 'integer', minimum: 1, example: 10107 },
  ...Object.fromEntries(REQUIREMENT_GROUPS.map((group) => [group, REQUIREMENT_GROUP_SCHEMA])),
  // Overwriting keeps the key in its place (the first of the groups).
  credit_party_identifier: { ...REQUIREMENT_GROUP_SCHEMA, example: { mobile_number: '27821234567' } },
};

/**
 * The three shapes of a quote request as a `oneOf`, so a generated client offers exactly one
 * amount form (none for fixed products): without `additionalProperties: false` a ranged body
 * would also match the fixed shape. The DTO (CreateQuoteBody) validates the same rule at runtime.
 */
const QUOTE_BODY = ApiBody({
  schema: {
    oneOf: [
      { title: 'FixedQuoteRequest', type: 'object', required: ['product_id'], additionalProperties: false, properties: QUOTE_BASE },
      {
        title: 'RangedAmountQuoteRequest',
        type: 'object',
        required: ['product_id', 'destination_amount'],
        additionalProperties: false,
        properties: { ...QUOTE_BASE, destination_amount: { type: 'string', pattern: '^(0|[1-9]\\d{0,14})(\\.\\d{1,8})?$', example: '25.00', description: 'Exact destination amount, decimal string' } },
      },
      {
        title: 'RangedBudgetQuoteRequest',
        type: 'object',
        required: ['product_id', 'budget_minor'],
        additionalProperties: false,
        properties: { ...QUOTE_BASE, budget_minor: { type: 'integer', minimum: 1, example: 5000, description: 'ZAR cents to spend at most' } },
      },
    ],
  },
  examples: {
    fixed: { summary: 'Fixed product (sandbox 10107, Vodacom R12 airtime PIN)', value: { product_id: 10107, credit_party_identifier: { mobile_number: '27821234567' } } },
    rangedAmount: { summary: 'Ranged product, exact destination amount', value: { product_id: 10106, destination_amount: '25.00', credit_party_identifier: { mobile_number: '27821234567' } } },
    rangedBudget: { summary: 'Ranged product, budget in ZAR cents', value: { product_id: 10106, budget_minor: 5000, credit_party_identifier: { mobile_number: '27821234567' } } },
  },
});

@ApiTags('quotes')
@Controller('quotes')
export class QuotesController {
  constructor(private readonly quotes: PurchaseQuoteService) {}

  @Post()
  @HttpCode(201)
  @RequireAbilities('quotes:write')
  @ApiOperation({
    operationId: 'createQuote',
    summary: 'Price a purchase (immutable, valid five minutes, funds one transaction)',
    description:
      'Fixed products take no amount; ranged products take exactly one of `destination_amount` or `budget_minor`. The recipient groups the product requires must each hold one complete alternative field set. Never contacts the provider.',
  })
  @QUOTE_BODY
  @ApiEnvelope(201, QuoteSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', 'PRODUCT_UNAVAILABLE', 'DESTINATION_AMOUNT_INVALID', 'BUDGET_INSUFFICIENT', 'PRICING_UNPUBLISHED', 'VENDOR_NOT_RELEASED', RATE_LIMITED)
  create(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateQuoteBody) {
    const identifiers: IdentifierGroups = {};
    for (const group of REQUIREMENT_GROUPS) {
      if (body[group] !== undefined) identifiers[group] = body[group];
    }
    return this.quotes.create(vendor.vendorId, {
      productId: body.product_id,
      destinationAmount: body.destination_amount,
      budgetCents: body.budget_minor === undefined ? undefined : centsFromMinorUnits(body.budget_minor),
      identifiers,
    });
  }

  @Get(':id')
  @RequireAbilities('quotes:write')
  @ApiOperation({ operationId: 'getQuote', summary: 'The vendor’s own quote', description: "One quote created by this vendor, with its price and expiry; another vendor's quote (or an unknown id) answers 404. A quote is bought with POST /transactions before it expires." })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(200, QuoteSchema)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  get(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string) {
    return this.quotes.get(vendor.vendorId, id.toLowerCase());
  }
}
