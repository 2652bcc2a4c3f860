import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { DomainError, FieldEncryption, NotFoundError } from '#common';
import { GatewayEnv } from '#config';
import { DashboardAuditRepository, type DashboardSession } from '#dashboard';
import { csrfField, CurrentSession, errorSummary, html, PageForbidden, pager, type SafeHtml, SessionCookies, sessionOf, setFlash, takeFlash, when } from '#web';
import { eventsOf, WebhookEndpointsService, type WebhookEndpointView, type WebhookEventType, type WebhookGateway } from '#webhooks';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';

/** Endpoints are registered per gateway (each gateway's API manages its own); the dashboard shows both. */
const GATEWAYS: readonly { gateway: WebhookGateway; label: string }[] = [
  { gateway: 'purchase', label: 'Purchase gateway' },
  { gateway: 'payout', label: 'Payout gateway' },
];
const PER_PAGE = 25;
const REASON_MAX_LENGTH = 500;

/** A secret just made (create or rotate): it travels once, sealed, from the POST to the endpoint's page. */
interface NewSecret extends Record<string, unknown> {
  kind: 'webhook-secret';
  endpointId: string;
  secret: string;
  rotated: boolean;
}

interface CreateEndpointForm {
  url?: string;
  description?: string;
  events?: string | string[];
}

type Switch = 'disable' | 'enable';

function gatewayOf(value: string): WebhookGateway {
  const known = GATEWAYS.find((item) => item.gateway === value);
  // An unknown gateway is a path that names nothing, like an unknown id.
  if (!known) throw new NotFoundError('webhook endpoint');
  return known.gateway;
}

const labelOf = (gateway: WebhookGateway) => GATEWAYS.find((item) => item.gateway === gateway)!.label;
const pathOf = (gateway: WebhookGateway, id: string) => `/webhooks/${gateway}/${id}`;

function secretNotice(fresh: NewSecret, endpoint: WebhookEndpointView): SafeHtml {
  const overlap = fresh.rotated
    ? endpoint.previous_secret_expires_at
      ? html`<p>The previous secret keeps signing beside this one until ${when(endpoint.previous_secret_expires_at)}: deploy the new one before then.</p>`
      : html`<p>The previous secret no longer signs.</p>`
    : '';
  return html`<section class="notice" aria-labelledby="new-secret"><h2 id="new-secret">${fresh.rotated ? 'New signing secret' : 'Endpoint created: its signing secret'}</h2>
<p>Copy the secret now: it is shown only this once and cannot be recovered (rotate it to get a new one).</p>${overlap}
<p class="secret" id="webhook-secret">${fresh.secret}</p>
<p><button type="button" data-copy="webhook-secret">Copy secret</button> <span id="webhook-secret-status" role="status"></span></p></section>`;
}

/**
 * Webhook endpoints of both gateways for the signed-in vendor: list, create (the secret shown once
 * after the redirect), rotate the secret, disable and enable with a reason, the delivery log and
 * redelivery. Every read and change goes through the webhooks lib's WebhookEndpointsService, the
 * service behind both gateways' API: the same URL guard (SSRF), validation and vendor scoping, so
 * another vendor's endpoint is a 404. Changes are recorded in the dashboard's audit log.
 */
@Controller('webhooks')
@RequirePermission('webhooks:manage')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly vendors: VendorService,
    private readonly audit: DashboardAuditRepository,
    private readonly encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
    @Inject(GatewayEnv) private readonly config: GatewayEnv,
  ) {}

  @Get()
  async list(@CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    await this.renderList(response, session, 200, {});
  }

  /** Creates the endpoint, then redirects to its page, which shows the secret once (post/redirect/get). */
  @Post()
  async create(@Body() form: CreateEndpointForm, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    await this.assertVendorMay(session, 'webhooks:write');
    const events = ([] as unknown[]).concat(form.events ?? []).filter((event): event is string => typeof event === 'string');
    const gateways = GATEWAYS.filter(({ gateway }) => events.some((event) => (eventsOf(gateway) as readonly string[]).includes(event)));
    if (gateways.length > 1) {
      return this.renderList(response, session, 400, { form, errors: { events: ['Choose the events of one gateway: an endpoint receives either purchase events or payout events. Add a second endpoint for the other.'] } });
    }
    const gateway = gateways[0]?.gateway ?? 'purchase';
    const description = typeof form.description === 'string' && form.description.trim() !== '' ? form.description.trim() : undefined;
    try {
      const created = await this.endpoints.create(session.vendorId, gateway, { url: typeof form.url === 'string' ? form.url.trim() : '', events, description });
      await this.audit.record(auditEvent(session, request, { action: 'webhook.created', subject: created.id, details: { gateway, url: created.url, events: created.events } }));
      await this.showSecretOnce(response, session, gateway, { kind: 'webhook-secret', endpointId: created.id, secret: created.secret, rotated: false });
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
      const errors = { ...error.fieldErrors };
      if (events.length === 0) errors.events = ['Choose at least one event.'];
      return this.renderList(response, session, 400, { form, errors });
    }
  }

  @Get(':gateway/:id')
  async detail(@Param('gateway') gatewayName: string, @Param('id') id: string, @Query('page') page: string | undefined, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    const gateway = gatewayOf(gatewayName);
    const flash = this.encryption.isConfigured ? takeFlash<NewSecret>(request, response, this.cookies, this.encryption, session.id) : null;
    const fresh = flash?.kind === 'webhook-secret' && flash.endpointId === id ? flash : undefined;
    const pageNumber = Math.max(1, Math.min(100_000, Number.parseInt(page ?? '1', 10) || 1));
    await this.renderDetail(response, session, gateway, id, 200, { page: pageNumber, fresh });
  }

  /** A confirmation step without JavaScript: what rotating does, and whether the current secret may keep signing for a while. */
  @Get(':gateway/:id/rotate')
  async confirmRotate(@Param('gateway') gatewayName: string, @Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const gateway = gatewayOf(gatewayName);
    await this.assertVendorMay(session, 'webhooks:write');
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
    await this.assertVendorMay(session, 'webhooks:write');
    // Undefined: the configured overlap (WEBHOOK_ROTATION_OVERLAP_SECONDS), as the API's default.
    const rotated = await this.endpoints.rotateSecret(session.vendorId, gateway, id, form.overlap === 'none' ? 0 : undefined);
    await this.audit.record(
      auditEvent(session, request, { action: 'webhook.secret_rotated', subject: rotated.id, details: { gateway, url: rotated.url, previous_secret_signs_until: rotated.previous_secret_expires_at } }),
    );
    await this.showSecretOnce(response, session, gateway, { kind: 'webhook-secret', endpointId: rotated.id, secret: rotated.secret, rotated: true });
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
    await this.assertVendorMay(session, 'webhooks:write');
    try {
      const delivery = await this.endpoints.redeliver(session.vendorId, gateway, id, eventId);
      await this.audit.record(auditEvent(session, request, { action: 'webhook.redelivered', subject: id, details: { gateway, event_type: delivery.event_type, event_id: eventId } }));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
      return this.renderDetail(response, session, gateway, id, 400, { page: 1, errors: error.fieldErrors });
    }
    response.redirect(303, pathOf(gateway, id));
  }

  /** Disable or enable, with the reason recorded in the audit log; back to the endpoint's page. */
  private async switchEndpoint(request: DashboardRequest, response: Response, gateway: WebhookGateway, id: string, action: Switch, reasonField: unknown): Promise<void> {
    const session = sessionOf(request);
    await this.assertVendorMay(session, 'webhooks:write');
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
    await this.assertVendorMay(session, 'webhooks:write');
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

  /** Post/redirect/get: the new secret rides the redirect in the sealed flash cookie and is shown once on the endpoint's page. */
  private async showSecretOnce(response: Response, session: DashboardSession, gateway: WebhookGateway, fresh: NewSecret): Promise<void> {
    // Without field encryption (a bare test set-up) the secret is answered directly, as the token page does.
    if (!this.encryption.isConfigured) return this.renderDetail(response, session, gateway, fresh.endpointId, 201, { page: 1, fresh });
    setFlash(response, this.cookies, this.encryption, session.id, { ...fresh });
    response.redirect(303, pathOf(gateway, fresh.endpointId));
  }

  /** The vendor-level switches apply here as to every token: staff who turn off an API's webhook abilities turn off these pages too. */
  private async assertVendorMay(session: DashboardSession, ability: 'webhooks:read' | 'webhooks:write'): Promise<void> {
    if (!(await this.vendors.get(session.vendorId)).enabledAbilities.includes(ability)) {
      throw new PageForbidden(`Webhooks${ability === 'webhooks:write' ? ' changes' : ''} are not enabled for your account; platform staff enable them.`);
    }
  }

  private async renderList(response: Response, session: DashboardSession, status: number, state: { form?: CreateEndpointForm; errors?: Record<string, string[]> }): Promise<void> {
    const vendor = await this.vendors.get(session.vendorId);
    if (!vendor.enabledAbilities.includes('webhooks:read')) throw new PageForbidden('Webhooks are not enabled for your account; platform staff enable them.');
    const lists = await Promise.all(GATEWAYS.map(async ({ gateway }) => ({ gateway, endpoints: await this.endpoints.list(session.vendorId, gateway) })));
    const rows = lists.flatMap(({ gateway, endpoints }) =>
      endpoints.map(
        (endpoint) => html`<tr data-endpoint="${endpoint.id}"><td>${labelOf(gateway)}</td><td><a href="${pathOf(gateway, endpoint.id)}">${endpoint.url}</a>${endpoint.description ? html`<p class="hint">${endpoint.description}</p>` : ''}</td>
<td>${endpoint.events.join(', ')}</td><td class="status-${endpoint.enabled ? 'active' : 'revoked'}">${endpoint.enabled ? 'enabled' : 'disabled'}</td><td>${when(endpoint.created_at)}</td></tr>`,
      ),
    );
    const chosen = new Set(([] as unknown[]).concat(state.form?.events ?? []));
    const eventBoxes = (gateway: WebhookGateway) =>
      eventsOf(gateway).map((event: WebhookEventType) => {
        const id = `event-${event.replace(/[^a-z]/g, '-')}`;
        return html`<div class="checkbox"><input type="checkbox" id="${id}" name="events" value="${event}"${chosen.has(event) ? html` checked` : ''}><label for="${id}">${event}</label></div>`;
      });
    const createForm = vendor.enabledAbilities.includes('webhooks:write')
      ? html`<h2>Add an endpoint</h2>
${errorSummary(state.errors)}
<form method="post" action="/webhooks">${csrfField(session)}
<label for="webhook-url">URL</label><p class="hint" id="webhook-url-hint">HTTPS, reachable from the internet. Each event is POSTed to it, signed with the endpoint's secret.</p>
<input id="webhook-url" name="url" type="text" inputmode="url" autocomplete="url" maxlength="2048" size="60" required aria-describedby="webhook-url-hint" value="${state.form?.url ?? ''}">
<label for="webhook-description">Description (optional)</label><input id="webhook-description" name="description" type="text" maxlength="200" value="${state.form?.description ?? ''}">
<p class="hint">An endpoint receives the events of one gateway: choose purchase events or payout events.</p>
${GATEWAYS.map(({ gateway, label }) => html`<fieldset><legend>${label} events</legend>${eventBoxes(gateway)}</fieldset>`)}
<p><button type="submit">Add endpoint</button></p></form>`
      : html`<p class="hint">Adding and changing endpoints is not enabled for your account; platform staff enable it.</p>`;
    sendPage(
      response,
      {
        title: 'Webhooks',
        session,
        current: '/webhooks',
        body: html`<p>Endpoints of ${session.vendorName} that receive signed event notices from the purchase and payout gateways. Events are hints: read the purchase or payout from the API for its verified state.</p>
<table><caption class="hint">Oldest first. Times are Johannesburg time.</caption>
<thead><tr><th scope="col">Gateway</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">No endpoints yet.</td></tr>`}</tbody></table>
${createForm}`,
      },
      status,
    );
  }

  private async renderDetail(
    response: Response,
    session: DashboardSession,
    gateway: WebhookGateway,
    id: string,
    status: number,
    state: { page: number; fresh?: NewSecret; errors?: Record<string, string[]> },
  ): Promise<void> {
    const vendor = await this.vendors.get(session.vendorId);
    if (!vendor.enabledAbilities.includes('webhooks:read')) throw new PageForbidden('Webhooks are not enabled for your account; platform staff enable them.');
    const mayChange = vendor.enabledAbilities.includes('webhooks:write');
    const endpoint = await this.endpoints.get(session.vendorId, gateway, id);
    const log = await this.endpoints.deliveries(session.vendorId, gateway, endpoint.id, state.page, PER_PAGE);
    const path = pathOf(gateway, endpoint.id);
    const rows = log.items.map(
      (delivery) => html`<tr data-delivery="${delivery.id}" data-event="${delivery.event_id}"><td>${when(delivery.created_at)}</td>
<td>${delivery.event_type}${delivery.redelivery_of ? html`<p class="hint">redelivery</p>` : ''}</td><td><code>${delivery.event_id}</code></td>
<td class="status-${delivery.status === 'delivered' ? 'completed' : delivery.status}">${delivery.status}</td><td class="num">${delivery.attempts}</td>
<td>${delivery.last_http_status ?? '—'}${delivery.last_error && delivery.last_http_status === null ? html`<p class="hint">${delivery.last_error}</p>` : ''}</td>
<td>${when(delivery.next_attempt_at)}</td><td>${when(delivery.delivered_at)}</td>
<td>${
        mayChange && endpoint.enabled
          ? html`<form method="post" action="${path}/events/${delivery.event_id}/redeliver" class="inline">${csrfField(session)}<button type="submit" class="secondary" aria-label="Redeliver ${delivery.event_type} ${delivery.event_id}">Redeliver</button></form>`
          : '—'
      }</td></tr>`,
    );
    const actions = mayChange
      ? html`<p><a href="${path}/rotate">Rotate the signing secret</a> · ${endpoint.enabled ? html`<a href="${path}/disable">Disable this endpoint</a>` : html`<a href="${path}/enable">Enable this endpoint</a>`}</p>`
      : '';
    sendPage(
      response,
      {
        title: 'Webhook endpoint',
        session,
        current: '/webhooks',
        body: html`${state.fresh ? secretNotice(state.fresh, endpoint) : ''}${errorSummary(state.errors)}
<dl><dt>URL</dt><dd>${endpoint.url}</dd><dt>Gateway</dt><dd>${labelOf(gateway)}</dd>${endpoint.description ? html`<dt>Description</dt><dd>${endpoint.description}</dd>` : ''}
<dt>Events</dt><dd>${endpoint.events.join(', ')}</dd>
<dt>Status</dt><dd id="endpoint-status" class="status-${endpoint.enabled ? 'active' : 'revoked'}">${endpoint.enabled ? 'enabled' : 'disabled'}</dd>
<dt>Created</dt><dd>${when(endpoint.created_at)}</dd>${endpoint.previous_secret_expires_at ? html`<dt>Previous secret signs until</dt><dd>${when(endpoint.previous_secret_expires_at)}</dd>` : ''}</dl>
${actions}
<h2>Delivery log</h2>
<div class="table-scroll"><table><caption class="hint">Newest first, ${log.total} in all. Times are Johannesburg time.</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Event id</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Last response</th><th scope="col">Next attempt</th><th scope="col">Delivered</th><th scope="col">Action</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="9">${state.page > 1 ? 'Nothing on this page.' : 'No deliveries yet.'}</td></tr>`}</tbody></table></div>
${pager(path, {}, state.page, log.total, PER_PAGE)}
<p><a href="/webhooks">Back to webhooks</a></p>`,
      },
      status,
    );
  }
}
