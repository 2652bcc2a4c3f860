import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, type Type } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { apiEnvelopeDecorator, apiErrorsDecorator, ValidationFailedError, type ApiEnvelopeFormat } from '#common';
import { type WebhookGateway } from '../webhook-event-types.js';
import { WebhookEndpointsService, type WebhookDeliveryPage, type WebhookDeliveryView, type WebhookEndpointView, type WebhookEndpointWithSecret } from '../webhook-endpoints.service.js';
import {
  CreateWebhookEndpointBody,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDeletedSchema,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from '../webhook-schemas.js';

export interface WebhookEndpointsApi {
  /** The gateway whose endpoints and events these are. */
  gateway: WebhookGateway;
  /** The gateway's envelope: bodies and their OpenAPI description. */
  envelope: ApiEnvelopeFormat<string>;
  /** Where an event's receiver reads the verified state, for the create operation's description. */
  verifiedStateHint: string;
  /** The gateway's access decorators (#auth): the ability a route needs, and the calling vendor. */
  access: {
    require: (ability: WebhookAbility) => MethodDecorator;
    vendor: () => ParameterDecorator;
  };
}

type WebhookAbility = 'webhooks:read' | 'webhooks:write';
/** The authenticated vendor, as the gateway's vendor decorator gives it. */
interface VendorPrincipal {
  vendorId: string;
}

/**
 * The OpenAPI tag of these operations and of the events a gateway sends (OpenApiFinish.webhooks),
 * with its description, for the gateway's `tags`.
 */
export const WEBHOOKS_TAG = { webhooks: 'Signed event notifications to HTTPS endpoints the vendor registers: hints to GET the resource, delivered at least once' } as const;

/**
 * The webhook-endpoints API (docs/INTEGRATION.md, Webhooks) for one gateway: the same routes,
 * abilities and operations on both, in the gateway's envelope, each vendor seeing only its own
 * endpoints (another vendor's answers 404). The gateway module lists the returned class among
 * its controllers. The gateway hands in #auth's decorators, so this lib does not depend on #auth.
 */
export function webhookEndpointsController({ gateway, envelope, verifiedStateHint, access }: WebhookEndpointsApi): Type<unknown> {
  const RequireAbilities = access.require;
  const CurrentVendor = access.vendor;
  const ApiEnvelope = apiEnvelopeDecorator(envelope);
  const ApiErrors = apiErrorsDecorator(envelope);
  const ID = ApiParam({ name: 'id', description: 'Webhook endpoint id', format: 'uuid' });

  @ApiTags('webhooks')
  @Controller('webhook-endpoints')
  class WebhookEndpointsController {
    constructor(private readonly endpoints: WebhookEndpointsService) {}

    @Post()
    @HttpCode(201)
    @RequireAbilities('webhooks:write')
    @ApiOperation({
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description: `Answers the signing secret once. Events are hints: on receipt, ${verifiedStateHint} for the verified state.`,
    })
    @ApiEnvelope(201, WebhookEndpointWithSecretSchema)
    @ApiErrors('VALIDATION_FAILED')
    create(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateWebhookEndpointBody): Promise<WebhookEndpointWithSecret> {
      return this.endpoints.create(vendor.vendorId, gateway, body);
    }

    @Get()
    @RequireAbilities('webhooks:read')
    @ApiOperation({ operationId: 'listWebhookEndpoints', summary: "The vendor's webhook endpoints on this gateway (never their secrets)", description: 'Every endpoint the vendor registered on this gateway, with its events, enabled switch and the end of a rotation overlap. Secrets are never shown again after they were created or rotated.' })
    @ApiEnvelope(200, WebhookEndpointSchema, { isArray: true })
    @ApiErrors()
    list(@CurrentVendor() vendor: VendorPrincipal): Promise<WebhookEndpointView[]> {
      return this.endpoints.list(vendor.vendorId, gateway);
    }

    @Get(':id')
    @RequireAbilities('webhooks:read')
    @ID
    @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint (never its secret)', description: "One endpoint of this vendor on this gateway; another vendor's (or an unknown id) answers 404. The secret is never shown." })
    @ApiEnvelope(200, WebhookEndpointSchema)
    @ApiErrors('NOT_FOUND')
    get(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string): Promise<WebhookEndpointView> {
      return this.endpoints.get(vendor.vendorId, gateway, id);
    }

    @Patch(':id')
    @RequireAbilities('webhooks:write')
    @ID
    @ApiOperation({ operationId: 'updateWebhookEndpoint', summary: 'Change the URL, events, description or enabled switch', description: 'Changes only the members sent. A new URL is checked like a new endpoint (HTTPS; private, loopback and link-local addresses are refused in production). Disabling an endpoint cancels its pending deliveries when they come due; the secret is unchanged (rotate it with rotate-secret).' })
    @ApiEnvelope(200, WebhookEndpointSchema)
    @ApiErrors('NOT_FOUND', 'VALIDATION_FAILED')
    update(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Body() body: UpdateWebhookEndpointBody): Promise<WebhookEndpointView> {
      return this.endpoints.update(vendor.vendorId, gateway, id, body);
    }

    @Delete(':id')
    @RequireAbilities('webhooks:write')
    @ID
    @ApiOperation({ operationId: 'deleteWebhookEndpoint', summary: 'Delete an endpoint; its pending deliveries are cancelled', description: "Deletes the endpoint: no new deliveries, pending ones are cancelled. The delivery log is kept for the operator's records." })
    @ApiEnvelope(200, WebhookDeletedSchema)
    @ApiErrors('NOT_FOUND')
    remove(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string): Promise<{ id: string; deleted: true }> {
      return this.endpoints.remove(vendor.vendorId, gateway, id);
    }

    @Post(':id/rotate-secret')
    @HttpCode(200)
    @RequireAbilities('webhooks:write')
    @ID
    @ApiOperation({
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'Answers the new secret once. Until previous_secret_expires_at both secrets sign: Gateway-Signature carries two v1 values.',
    })
    @ApiEnvelope(200, WebhookEndpointWithSecretSchema)
    @ApiErrors('NOT_FOUND', 'VALIDATION_FAILED')
    rotate(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Body() body: RotateWebhookSecretBody): Promise<WebhookEndpointWithSecret> {
      return this.endpoints.rotateSecret(vendor.vendorId, gateway, id, body?.overlap_seconds);
    }

    @Get(':id/deliveries')
    @RequireAbilities('webhooks:read')
    @ID
    @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1 } })
    @ApiQuery({ name: 'per_page', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } })
    @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "The endpoint's delivery log, newest first", description: 'Every delivery to this endpoint, newest first, paginated (`page`, `per_page`) with paging metadata: status (pending, delivered, failed, cancelled), attempts, last HTTP status and error, and the next attempt of a pending one.' })
    @ApiEnvelope(200, WebhookDeliveryPageSchema)
    @ApiErrors('NOT_FOUND', 'VALIDATION_FAILED')
    deliveries(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Query('page') page?: string, @Query('per_page') perPage?: string): Promise<WebhookDeliveryPage> {
      const { pageNumber, size } = paging(page, perPage);
      return this.endpoints.deliveries(vendor.vendorId, gateway, id, pageNumber, size);
    }

    @Post(':id/events/:eventId/redeliver')
    @HttpCode(202)
    @RequireAbilities('webhooks:write')
    @ID
    @ApiParam({ name: 'eventId', format: 'uuid' })
    @ApiOperation({ operationId: 'redeliverWebhookEvent', summary: 'Deliver an event to this endpoint again (a new entry in the delivery log)', description: 'Queues the event for this endpoint again (202), for example after the receiver was fixed: a new delivery log entry with `redelivery_of`, the same event id and body (deduplicate on the id), signed afresh.' })
    @ApiEnvelope(202, WebhookDeliverySchema)
    @ApiErrors('NOT_FOUND', 'VALIDATION_FAILED')
    redeliver(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Param('eventId') eventId: string): Promise<WebhookDeliveryView> {
      return this.endpoints.redeliver(vendor.vendorId, gateway, id, eventId);
    }
  }
  return WebhookEndpointsController;
}

function paging(page?: string, perPage?: string): { pageNumber: number; size: number } {
  const pageNumber = page === undefined ? 1 : Number(page);
  const size = perPage === undefined ? 50 : Number(perPage);
  const errors: Record<string, string[]> = {};
  if (!Number.isInteger(pageNumber) || pageNumber < 1) errors.page = ['page must be an integer of at least 1'];
  if (!Number.isInteger(size) || size < 1 || size > 100) errors.per_page = ['per_page must be an integer from 1 to 100'];
  if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
  return { pageNumber, size };
}
