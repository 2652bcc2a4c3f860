import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { IntegerIdPipe } from '../../integer-id.pipe.js';
import { badRequest, notFound } from '../../sandbox-errors.js';
import { pageOf, pageRequestOf } from '../pagination.js';
import { COUNTRIES, OPERATORS, SERVICES } from './purchase-catalogue.data.js';
import { PurchaseCatalogue } from './purchase-catalogue.service.js';

@Controller('dvs/v1')
export class PurchaseCatalogueController {
  constructor(private readonly catalogue: PurchaseCatalogue) {}

  @Get('services')
  services() {
    return Object.values(SERVICES);
  }

  @Get('countries')
  countries() {
    return COUNTRIES;
  }

  @Get('operators')
  operators() {
    return OPERATORS;
  }

  @Get('products')
  products(
    @Res({ passthrough: true }) response: Response,
    @Query('page') page?: string,
    @Query('per_page') perPage?: string,
    @Query('type') type?: string,
    @Query('country_iso_code') countryIsoCode?: string,
    @Query('operator_id') operatorId?: string,
    @Query('service_id') serviceId?: string,
  ) {
    const matching = this.catalogue.products({
      type,
      countryIsoCode,
      operatorId: optionalId('operator_id', operatorId),
      serviceId: optionalId('service_id', serviceId),
    });
    return pageOf(matching, pageRequestOf(page, perPage), response);
  }

  @Get('products/:id')
  product(@Param('id', IntegerIdPipe) id: number) {
    const product = this.catalogue.product(id);
    if (!product) throw notFound('product');
    return product;
  }
}

function optionalId(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw badRequest('INVALID_QUERY', `${name} must be an integer`);
  return Number(raw);
}
