import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, FieldEncryption } from '#common';
import { DashboardAuditService, type DashboardSession } from '#dashboard';
import { CurrentSession, SessionCookies, sessionOf, takeFlash } from '#web';
import { eventsOf, WebhookEndpointsService } from '#webhooks';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { type CreateEndpointForm, GATEWAYS, gatewayOf, type NewSecret, pathOf, WebhookPages } from './webhook-pages.js';

/**
 * Webhook endpoints of both gateways for the signed-in vendor: list, create (the secret shown once
 * after the redirect), the delivery log and redelivery; rotating the secret, disabling and
 * enabling are WebhookChangesController's. Every read and change goes through the webhooks lib's
 * WebhookEndpointsService, the service behind both gateways' API: the same URL guard (SSRF),
 * validation and vendor scoping, so another vendor's endpoint is a 404. Changes are recorded in
 * the dashboard's audit log.
 */
@Controller('webhooks')
@RequirePermission('webhooks:manage')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly pages: WebhookPages,
    private readonly audit: DashboardAuditService,
    private readonly encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
  ) {}

  @Get()
  async list(@CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    await this.pages.renderList(response, session, 200, {});
  }

  /** Creates the endpoint, then redirects to its page, which shows the secret once (post/redirect/get). */
  @Post()
  async create(@Body() form: CreateEndpointForm, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    await this.pages.assertVendorMay(session, 'webhooks:write');
    const events = ([] as unknown[]).concat(form.events ?? []).filter((event): event is string => typeof event === 'string');
    const gateways = GATEWAYS.filter(({ gateway }) => events.some((event) => (eventsOf(gateway) as readonly string[]).includes(event)));
    if (gateways.length > 1) {
      return this.pages.renderList(response, session, 400, { form, errors: { events: ['Choose the events of one gateway: an endpoint receives either purchase events or payout events. Add a second endpoint for the other.'] } });
    }
    const gateway = gateways[0]?.gateway ?? 'purchase';
    const description = typeof form.description === 'string' && form.description.trim() !== '' ? form.description.trim() : undefined;
    try {
      const created = await this.endpoints.create(session.vendorId, gateway, { url: typeof form.url === 'string' ? form.url.trim() : '', events, description });
      await this.audit.record(auditEvent(session, request, { action: 'webhook.created', subject: created.id, details: { gateway, url: created.url, events: created.events } }));
      await this.pages.showSecretOnce(response, session, gateway, { kind: 'webhook-secret', endpointId: created.id, secret: created.secret, rotated: false });
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
      const errors = { ...error.fieldErrors };
      if (events.length === 0) errors.events = ['Choose at least one event.'];
      return this.pages.renderList(response, session, 400, { form, errors });
    }
  }

  @Get(':gateway/:id')
  async detail(@Param('gateway') gatewayName: string, @Param('id') id: string, @Query('page') page: string | undefined, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    const gateway = gatewayOf(gatewayName);
    const flash = this.encryption.isConfigured ? takeFlash<NewSecret>(request, response, this.cookies, this.encryption, session.id) : null;
    const fresh = flash?.kind === 'webhook-secret' && flash.endpointId === id ? flash : undefined;
    const pageNumber = Math.max(1, Math.min(100_000, Number.parseInt(page ?? '1', 10) || 1));
    await this.pages.renderDetail(response, session, gateway, id, 200, { page: pageNumber, fresh });
  }

  /** Queues the event for this endpoint again: a new entry in the log, the same event id and body, signed afresh. */
  @Post(':gateway/:id/events/:eventId/redeliver')
  async redeliver(
    @Param('gateway') gatewayName: string,
    @Param('id') id: string,
    @Param('eventId') eventId: string,
    @Req() request: DashboardRequest,
    @Res() response: Response,
  ): Promise<void> {
    const session = sessionOf(request);
    const gateway = gatewayOf(gatewayName);
    await this.pages.assertVendorMay(session, 'webhooks:write');
    try {
      const delivery = await this.endpoints.redeliver(session.vendorId, gateway, id, eventId);
      await this.audit.record(auditEvent(session, request, { action: 'webhook.redelivered', subject: id, details: { gateway, event_type: delivery.event_type, event_id: eventId } }));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
      return this.pages.renderDetail(response, session, gateway, id, 400, { page: 1, errors: error.fieldErrors });
    }
    response.redirect(303, pathOf(gateway, id));
  }
}
