import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { centsFromMinorUnits } from '#money';
import { QuoteService, type IdentifierGroups } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { CreateQuoteBody } from './dto/create-quote.body.js';
import { QuoteSchema } from './dto/quote.schema.js';

@ApiTags('quotes')
@Controller('quotes')
export class QuotesController {
  constructor(private readonly quotes: QuoteService) {}

  @Post()
  @HttpCode(201)
  @RequireAbilities('quotes:write')
  @ApiOperation({
    operationId: 'createQuote',
    summary: 'Price a purchase (immutable, valid five minutes, funds one transaction)',
    description:
      'Fixed products take no amount; ranged products take exactly one of `destination_amount` or `budget_minor`. The recipient groups the product requires must each hold one complete alternative field set. Never contacts the provider.',
  })
  @ApiEnvelope(201, QuoteSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', 'PRODUCT_UNAVAILABLE', 'DESTINATION_AMOUNT_INVALID', 'BUDGET_INSUFFICIENT', 'PRICING_UNPUBLISHED', 'VENDOR_NOT_RELEASED', RATE_LIMITED)
  create(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateQuoteBody) {
    const identifiers: IdentifierGroups = {};
    for (const group of ['credit_party_identifier', 'debit_party_identifier', 'sender', 'beneficiary', 'statement_identifier', 'additional_identifier'] as const) {
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
  @ApiOperation({ operationId: 'getQuote', summary: 'The vendor’s own quote' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(200, QuoteSchema)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  get(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string) {
    return this.quotes.get(vendor.vendorId, id.toLowerCase());
  }
}
