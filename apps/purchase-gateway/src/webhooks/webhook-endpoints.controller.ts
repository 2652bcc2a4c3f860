import { applyDecorators, Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { ValidationFailedError } from '#common';
import {
  CreateWebhookEndpointBody,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDeletedSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointsService,
  WebhookEndpointWithSecretSchema,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
} from '#webhooks';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';

/** The purchase envelope around an array (the shared ApiEnvelope describes one object). */
const ApiEnvelopeList = (schema: Type<unknown>) =>
  applyDecorators(
    ApiExtraModels(schema),
    ApiResponse({
      status: 200,
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: { success: { type: 'boolean', enum: [true] }, message: { type: 'string', enum: ['OK'] }, data: { type: 'array', items: { $ref: getSchemaPath(schema) } } },
      },
    }),
  );

const ID = ApiParam({ name: 'id', description: 'Webhook endpoint id', format: 'uuid' });
const GATEWAY = 'purchase';

/**
 * Signed webhooks of the purchase gateway (docs/INTEGRATION.md, Webhooks): transaction.completed,
 * .failed, .reversed and .review. Vendor-scoped: another vendor's endpoint answers 404.
 */
@ApiTags('webhooks')
@Controller('webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @HttpCode(201)
  @RequireAbilities('webhooks:write')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: 'Answers the signing secret once. Events are hints: on receipt, GET /api/v1/transactions/{id} for the verified state.',
  })
  @ApiEnvelope(201, WebhookEndpointWithSecretSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  create(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateWebhookEndpointBody): Promise<WebhookEndpointWithSecret> {
    return this.endpoints.create(vendor.vendorId, GATEWAY, body);
  }

  @Get()
  @RequireAbilities('webhooks:read')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: "The vendor's webhook endpoints on this gateway (never their secrets)" })
  @ApiEnvelopeList(WebhookEndpointSchema)
  @ApiPurchaseErrors(RATE_LIMITED)
  list(@CurrentVendor() vendor: VendorPrincipal): Promise<WebhookEndpointView[]> {
    return this.endpoints.list(vendor.vendorId, GATEWAY);
  }

  @Get(':id')
  @RequireAbilities('webhooks:read')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint (never its secret)' })
  @ApiEnvelope(200, WebhookEndpointSchema)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  get(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string): Promise<WebhookEndpointView> {
    return this.endpoints.get(vendor.vendorId, GATEWAY, id);
  }

  @Patch(':id')
  @RequireAbilities('webhooks:write')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiOperation({ operationId: 'updateWebhookEndpoint', summary: 'Change the URL, events, description or enabled switch' })
  @ApiEnvelope(200, WebhookEndpointSchema)
  @ApiPurchaseErrors('NOT_FOUND', 'VALIDATION_FAILED', RATE_LIMITED)
  update(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Body() body: UpdateWebhookEndpointBody): Promise<WebhookEndpointView> {
    return this.endpoints.update(vendor.vendorId, GATEWAY, id, body);
  }

  @Delete(':id')
  @RequireAbilities('webhooks:write')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiOperation({ operationId: 'deleteWebhookEndpoint', summary: 'Delete an endpoint; its pending deliveries are cancelled' })
  @ApiEnvelope(200, WebhookDeletedSchema)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  remove(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string): Promise<{ id: string; deleted: true }> {
    return this.endpoints.remove(vendor.vendorId, GATEWAY, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @RequireAbilities('webhooks:write')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description: 'Answers the new secret once. Until previous_secret_expires_at both secrets sign: Gateway-Signature carries two v1 values.',
  })
  @ApiEnvelope(200, WebhookEndpointWithSecretSchema)
  @ApiPurchaseErrors('NOT_FOUND', 'VALIDATION_FAILED', RATE_LIMITED)
  rotate(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Body() body: RotateWebhookSecretBody): Promise<WebhookEndpointWithSecret> {
    return this.endpoints.rotateSecret(vendor.vendorId, GATEWAY, id, body?.overlap_seconds);
  }

  @Get(':id/deliveries')
  @RequireAbilities('webhooks:read')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1 } })
  @ApiQuery({ name: 'per_page', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } })
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "The endpoint's delivery log, newest first" })
  @ApiEnvelopeList(WebhookDeliverySchema)
  @ApiPurchaseErrors('NOT_FOUND', 'VALIDATION_FAILED', RATE_LIMITED)
  deliveries(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Query('page') page?: string, @Query('per_page') perPage?: string): Promise<WebhookDeliveryView[]> {
    const { pageNumber, size } = paging(page, perPage);
    return this.endpoints.deliveries(vendor.vendorId, GATEWAY, id, pageNumber, size);
  }

  @Post(':id/events/:eventId/redeliver')
  @HttpCode(202)
  @RequireAbilities('webhooks:write')
  @Header('Cache-Control', 'no-store')
  @ID
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiOperation({ operationId: 'redeliverWebhookEvent', summary: 'Deliver an event to this endpoint again (a new entry in the delivery log)' })
  @ApiEnvelope(202, WebhookDeliverySchema)
  @ApiPurchaseErrors('NOT_FOUND', 'VALIDATION_FAILED', RATE_LIMITED)
  redeliver(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Param('eventId') eventId: string): Promise<WebhookDeliveryView> {
    return this.endpoints.redeliver(vendor.vendorId, GATEWAY, id, eventId);
  }
}

export function paging(page?: string, perPage?: string): { pageNumber: number; size: number } {
  const pageNumber = page === undefined ? 1 : Number(page);
  const size = perPage === undefined ? 50 : Number(perPage);
  const errors: Record<string, string[]> = {};
  if (!Number.isInteger(pageNumber) || pageNumber < 1) errors.page = ['page must be an integer of at least 1'];
  if (!Number.isInteger(size) || size < 1 || size > 100) errors.per_page = ['per_page must be an integer from 1 to 100'];
  if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
  return { pageNumber, size };
}
