import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { GatewayEnv } from '#config';
import { DashboardAuditService, type DashboardSession } from '#dashboard';
import { csrfField, CurrentSession, errorSummary, html, sessionOf } from '#web';
import { WebhookEndpointsService, type WebhookGateway } from '#webhooks';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';
import { gatewayOf, labelOf, pathOf, REASON_MAX_LENGTH, type Switch, WebhookPages } from './webhook-pages.js';

/** Changes to one webhook endpoint, each after a confirmation page: rotating its signing secret, disabling and enabling it (with a reason). */
@Controller('webhooks')
@RequirePermission('webhooks:manage')
export class WebhookChangesController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly pages: WebhookPages,
    private readonly audit: DashboardAuditService,
    @Inject(GatewayEnv) private readonly config: GatewayEnv,
  ) {}

  /** A confirmation step without JavaScript: what rotating does, and whether the current secret may keep signing for a while. */
  @Get(':gateway/:id/rotate')
  async confirmRotate(@Param('gateway') gatewayName: string, @Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const gateway = gatewayOf(gatewayName);
    await this.pages.assertVendorMay(session, 'webhooks:write');
    const endpoint = await this.endpoints.get(session.vendorId, gateway, id);
    const hours = Math.round((this.config.WEBHOOK_ROTATION_OVERLAP_SECONDS / 3600) * 10) / 10;
    sendPage(response, {
      title: 'Rotate the signing secret',
      session,
      current: '/webhooks',
      body: html`<div class="notice" role="alert"><p>Make a new signing secret for <strong>${endpoint.url}</strong> (${labelOf(gateway)})? The new secret is shown once, on the next page.</p></div>
<form method="post" action="${pathOf(gateway, endpoint.id)}/rotate">${csrfField(session)}
<fieldset><legend>The current secret</legend>
<div class="checkbox"><input type="radio" id="overlap-keep" name="overlap" value="keep" checked><label for="overlap-keep">keeps signing beside the new one for ${hours} hours, so the receiver can move to the new one without refusing events</label></div>
<div class="checkbox"><input type="radio" id="overlap-none" name="overlap" value="none"><label for="overlap-none">stops signing now (when it may have leaked)</label></div>
</fieldset>
<p><button type="submit" class="danger">Rotate the secret</button> <a href="${pathOf(gateway, endpoint.id)}">Cancel</a></p></form>`,
    });
  }

  @Post(':gateway/:id/rotate')
  async rotate(@Param('gateway') gatewayName: string, @Param('id') id: string, @Body() form: { overlap?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    const gateway = gatewayOf(gatewayName);
    await this.pages.assertVendorMay(session, 'webhooks:write');
    // Undefined: the configured overlap (WEBHOOK_ROTATION_OVERLAP_SECONDS), as the API's default.
    const rotated = await this.endpoints.rotateSecret(session.vendorId, gateway, id, form.overlap === 'none' ? 0 : undefined);
    await this.audit.record(
      auditEvent(session, request, { action: 'webhook.secret_rotated', subject: rotated.id, details: { gateway, url: rotated.url, previous_secret_signs_until: rotated.previous_secret_expires_at } }),
    );
    await this.pages.showSecretOnce(response, session, gateway, { kind: 'webhook-secret', endpointId: rotated.id, secret: rotated.secret, rotated: true });
  }

  @Get(':gateway/:id/disable')
  confirmDisable(@Param('gateway') gatewayName: string, @Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    return this.renderSwitch(response, session, gatewayOf(gatewayName), id, 'disable', 200);
  }

  @Get(':gateway/:id/enable')
  confirmEnable(@Param('gateway') gatewayName: string, @Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    return this.renderSwitch(response, session, gatewayOf(gatewayName), id, 'enable', 200);
  }

  @Post(':gateway/:id/disable')
  disable(@Param('gateway') gatewayName: string, @Param('id') id: string, @Body() form: { reason?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    return this.switchEndpoint(request, response, gatewayOf(gatewayName), id, 'disable', form.reason);
  }

  @Post(':gateway/:id/enable')
  enable(@Param('gateway') gatewayName: string, @Param('id') id: string, @Body() form: { reason?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    return this.switchEndpoint(request, response, gatewayOf(gatewayName), id, 'enable', form.reason);
  }

  /** Disable or enable, with the reason recorded in the audit log; back to the endpoint's page. */
  private async switchEndpoint(request: DashboardRequest, response: Response, gateway: WebhookGateway, id: string, action: Switch, reasonField: unknown): Promise<void> {
    const session = sessionOf(request);
    await this.pages.assertVendorMay(session, 'webhooks:write');
    const reason = typeof reasonField === 'string' ? reasonField.trim() : '';
    if (reason === '' || reason.length > REASON_MAX_LENGTH) {
      return this.renderSwitch(response, session, gateway, id, action, 400, { reason: [`Say why, in at most ${REASON_MAX_LENGTH} characters: it is recorded in the audit log.`] });
    }
    const endpoint = await this.endpoints.update(session.vendorId, gateway, id, { enabled: action === 'enable' });
    await this.audit.record(auditEvent(session, request, { action: action === 'enable' ? 'webhook.enabled' : 'webhook.disabled', subject: endpoint.id, details: { gateway, url: endpoint.url, reason } }));
    response.redirect(303, pathOf(gateway, endpoint.id));
  }

  /** The confirmation of disabling or enabling: what happens, to which endpoint, and the reason asked for. */
  private async renderSwitch(response: Response, session: DashboardSession, gateway: WebhookGateway, id: string, action: Switch, status: number, errors?: Record<string, string[]>): Promise<void> {
    await this.pages.assertVendorMay(session, 'webhooks:write');
    const endpoint = await this.endpoints.get(session.vendorId, gateway, id);
    const consequences =
      action === 'disable'
        ? html`<p>Disable <strong>${endpoint.url}</strong> (${labelOf(gateway)})? From now on no event is sent to it: deliveries waiting for a retry are cancelled, and events that happen while it is disabled are not sent to it, not even after it is enabled again.</p>`
        : html`<p>Enable <strong>${endpoint.url}</strong> (${labelOf(gateway)}) again? Events from now on are sent to it; events that happened while it was disabled are not.</p>`;
    sendPage(
      response,
      {
        title: action === 'disable' ? 'Disable a webhook endpoint' : 'Enable a webhook endpoint',
        session,
        current: '/webhooks',
        body: html`${errorSummary(errors)}<div class="notice" role="alert">${consequences}</div>
<form method="post" action="${pathOf(gateway, endpoint.id)}/${action}">${csrfField(session)}
<label for="switch-reason">Why (recorded in the audit log)</label><textarea id="switch-reason" name="reason" required maxlength="${REASON_MAX_LENGTH}"></textarea>
<p><button type="submit"${action === 'disable' ? html` class="danger"` : ''}>${action === 'disable' ? 'Disable the endpoint' : 'Enable the endpoint'}</button> <a href="${pathOf(gateway, endpoint.id)}">Cancel</a></p></form>`,
      },
      status,
    );
  }
}
