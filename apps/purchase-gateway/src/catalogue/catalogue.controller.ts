import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { ValidationFailedError } from '#common';
import { CatalogueReadCache } from '#purchase';
import { ProductListQuery } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { CountrySchema, OperatorSchema, ProductPageSchema, ProductSchema, ServiceSchema } from './catalogue.schemas.js';

function listEnvelope(schema: new () => unknown) {
  return {
    schema: {
      type: 'object',
      properties: { success: { type: 'boolean', enum: [true] }, message: { type: 'string', enum: ['OK'] }, data: { type: 'array', items: { $ref: getSchemaPath(schema) } } },
    },
  };
}

@ApiTags('catalogue')
@ApiExtraModels(ServiceSchema, CountrySchema, OperatorSchema)
@Controller()
export class CatalogueController {
  constructor(private readonly catalogue: CatalogueReadCache) {}

  @Get('services')
  @RequireAbilities('catalogue:read')
  @ApiOperation({ operationId: 'listServices', summary: 'Services within the vendor’s enabled products', description: 'The services (airtime, data, electricity, bill payments, eSIM ...) of the products enabled for this vendor. Not paginated: the list is short..' })
  @ApiOkResponse(listEnvelope(ServiceSchema))
  @ApiPurchaseErrors(RATE_LIMITED)
  services(@CurrentVendor() vendor: VendorPrincipal) {
    return this.catalogue.listServices(vendor.vendorId);
  }

  @Get('countries')
  @RequireAbilities('catalogue:read')
  @ApiOperation({ operationId: 'listCountries', summary: 'Countries within the vendor’s enabled products', description: 'The countries of the products enabled for this vendor, with their ISO codes and local currency. Not paginated.' })
  @ApiOkResponse(listEnvelope(CountrySchema))
  @ApiPurchaseErrors(RATE_LIMITED)
  countries(@CurrentVendor() vendor: VendorPrincipal) {
    return this.catalogue.listCountries(vendor.vendorId);
  }

  @Get('operators')
  @RequireAbilities('catalogue:read')
  @ApiOperation({ operationId: 'listOperators', summary: 'Operators within the vendor’s enabled products', description: 'The operators (networks, utilities, billers) of the products enabled for this vendor. Not paginated.' })
  @ApiOkResponse(listEnvelope(OperatorSchema))
  @ApiPurchaseErrors(RATE_LIMITED)
  operators(@CurrentVendor() vendor: VendorPrincipal) {
    return this.catalogue.listOperators(vendor.vendorId);
  }

  @Get('products')
  @RequireAbilities('catalogue:read')
  @ApiOperation({
    operationId: 'listProducts',
    summary: 'Enabled products, paginated',
    description: 'Vendor prices from the current pricing version (never wholesale). Ranged products list the price at their minimum amount; always quote the desired amount. Follow every page.',
  })
  @ApiEnvelope(200, ProductPageSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  products(@CurrentVendor() vendor: VendorPrincipal, @Query() query: ProductListQuery) {
    return this.catalogue.listProducts(vendor.vendorId, {
      search: query.search,
      country: query.country,
      operatorId: query.operator_id,
      serviceId: query.service_id,
      page: query.page,
      perPage: query.per_page,
    });
  }

  @Get('products/:id')
  @RequireAbilities('catalogue:read')
  @ApiOperation({
    operationId: 'getProduct',
    summary: 'One enabled product with vendor price, benefits and delivery requirements',
    description: 'A product not enabled for the vendor (withdrawn, no longer offered, or unknown) answers 422 PRODUCT_UNAVAILABLE: refresh the catalogue.',
  })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiEnvelope(200, ProductSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', 'PRODUCT_UNAVAILABLE', RATE_LIMITED)
  product(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string) {
    if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) throw new ValidationFailedError({ id: ['id must be a positive integer product id'] });
    return this.catalogue.getProduct(vendor.vendorId, Number(id));
  }
}
