import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { PageOf, type Documents } from '#common';
import type { WebhookDeliveryPage, WebhookDeliveryView, WebhookEndpointsService, WebhookEndpointView, WebhookEndpointWithSecret } from './webhook-endpoints.service.js';
import { PAYOUT_WEBHOOK_EVENTS, PURCHASE_WEBHOOK_EVENTS } from './webhook-event-types.js';

const ALL_EVENTS = [...PURCHASE_WEBHOOK_EVENTS, ...PAYOUT_WEBHOOK_EVENTS];

/*
 * Request bodies: every property is only allowed here (unknown ones are refused by the
 * whitelisting pipe); WebhookEndpointsService checks the values, with the gateway's own event set,
 * so both gateways answer the same VALIDATION_FAILED field errors in their own envelope.
 */

export class CreateWebhookEndpointBody {
  @ApiProperty({ type: String, format: 'uri', description: 'HTTPS URL that receives POSTed events. Private, loopback and link-local addresses are refused in production.', example: 'https://vendor.example/webhooks/gateway' })
  @Allow()
  url: unknown;

  @ApiProperty({ description: "Events to receive, from this gateway's set", enum: ALL_EVENTS, isArray: true, example: ['transaction.completed', 'transaction.failed'] })
  @Allow()
  events: unknown;

  @ApiPropertyOptional({ type: String, maxLength: 200, description: 'Free text for the vendor (at most 200 characters)', example: 'production order service' })
  @Allow()
  description?: unknown;

  @ApiPropertyOptional({ type: Boolean, description: 'Defaults to true', example: true })
  @Allow()
  enabled?: unknown;
}

export class UpdateWebhookEndpointBody {
  @ApiPropertyOptional({ type: String, format: 'uri', example: 'https://vendor.example/webhooks/gateway' })
  @Allow()
  url?: unknown;

  @ApiPropertyOptional({ enum: ALL_EVENTS, isArray: true, example: ['transaction.completed'] })
  @Allow()
  events?: unknown;

  @ApiPropertyOptional({ type: String, maxLength: 200, example: 'production order service' })
  @Allow()
  description?: unknown;

  @ApiPropertyOptional({ type: Boolean, description: 'A disabled endpoint gets no new deliveries; its pending ones are cancelled when they come due', example: false })
  @Allow()
  enabled?: unknown;
}

export class RotateWebhookSecretBody {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 604800, description: 'Seconds the previous secret keeps signing (0 to 604800; default 86400). During the overlap every delivery carries two v1 signatures.', example: 86_400 })
  @Allow()
  overlap_seconds?: unknown;
}

export class WebhookEndpointSchema implements Documents<WebhookEndpointView, WebhookEndpointSchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'https://vendor.example/webhooks/gateway' })
  url: string;
  @ApiProperty({ type: String, nullable: true })
  description: string | null;
  @ApiProperty({ enum: ALL_EVENTS, isArray: true })
  events: string[];
  @ApiProperty()
  enabled: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Until when the previous secret also signs, after a rotation' })
  previous_secret_expires_at: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class WebhookEndpointWithSecretSchema extends WebhookEndpointSchema implements Documents<WebhookEndpointWithSecret, WebhookEndpointWithSecretSchema> {
  @ApiProperty({ description: 'The signing secret. Shown only in this answer: store it now.', example: 'whsec_3q2-7wY2…' })
  secret: string;
}

export class WebhookDeletedSchema implements Documents<Awaited<ReturnType<WebhookEndpointsService['remove']>>, WebhookDeletedSchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ enum: [true] })
  deleted: true;
}

export class WebhookDeliverySchema implements Documents<WebhookDeliveryView, WebhookDeliverySchema> {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ format: 'uuid', description: 'The event id (also in the body and the Gateway-Event-Id header); receivers dedupe on it' })
  event_id: string;
  @ApiProperty({ enum: ALL_EVENTS })
  event_type: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The delivery this one repeats on request' })
  redelivery_of: string | null;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed', 'cancelled'] })
  status: string;
  @ApiProperty({ type: 'integer' })
  attempts: number;
  @ApiProperty({ type: 'integer', nullable: true })
  last_http_status: number | null;
  @ApiProperty({ type: String, nullable: true })
  last_error: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  delivered_at: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/**
 * One page of the delivery log: `{items, page, total, last_page}`, the paging metadata every
 * list of both gateways carries (docs/INTEGRATION.md, "Lists and paging").
 */
export class WebhookDeliveryPageSchema
  extends PageOf(WebhookDeliverySchema, { page: 1, total: 1, last_page: 1 }, { page: 'This page (from 1)', total: 'Deliveries in the whole log', last_page: 'The last page (1 when the log is empty)' })
  implements Documents<WebhookDeliveryPage, WebhookDeliveryPageSchema> {}
