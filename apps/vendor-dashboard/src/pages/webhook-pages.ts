import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { FieldEncryption, NotFoundError } from '#common';
import type { DashboardSession } from '#dashboard';
import { csrfField, errorSummary, html, PageForbidden, pager, type SafeHtml, SessionCookies, setFlash, when } from '#web';
import { eventsOf, WebhookEndpointsService, type WebhookEndpointView, type WebhookEventType, type WebhookGateway } from '#webhooks';
import { sendPage } from '../web/layout.js';

/** Endpoints are registered per gateway (each gateway's API manages its own); the dashboard shows both. */
export const GATEWAYS: readonly { gateway: WebhookGateway; label: string }[] = [
  { gateway: 'purchase', label: 'Purchase gateway' },
  { gateway: 'payout', label: 'Payout gateway' },
];
export const PER_PAGE = 25;
export const REASON_MAX_LENGTH = 500;

/** A secret just made (create or rotate): it travels once, sealed, from the POST to the endpoint's page. */
export interface NewSecret extends Record<string, unknown> {
  kind: 'webhook-secret';
  endpointId: string;
  secret: string;
  rotated: boolean;
}

export interface CreateEndpointForm {
  url?: string;
  description?: string;
  events?: string | string[];
}

export type Switch = 'disable' | 'enable';

export function gatewayOf(value: string): WebhookGateway {
  const known = GATEWAYS.find((item) => item.gateway === value);
  // An unknown gateway is a path that names nothing, like an unknown id.
  if (!known) throw new NotFoundError('webhook endpoint');
  return known.gateway;
}

export const labelOf = (gateway: WebhookGateway) => GATEWAYS.find((item) => item.gateway === gateway)!.label;
export const pathOf = (gateway: WebhookGateway, id: string) => `/webhooks/${gateway}/${id}`;

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

/** The webhook pages both webhook controllers answer with: the list (with the add form) and an endpoint with its delivery log. */
@Injectable()
export class WebhookPages {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly vendors: VendorService,
    private readonly encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
  ) {}

  /** Post/redirect/get: the new secret rides the redirect in the sealed flash cookie and is shown once on the endpoint's page. */
  async showSecretOnce(response: Response, session: DashboardSession, gateway: WebhookGateway, fresh: NewSecret): Promise<void> {
    // Without field encryption (a bare test set-up) the secret is answered directly, as the token page does.
    if (!this.encryption.isConfigured) return this.renderDetail(response, session, gateway, fresh.endpointId, 201, { page: 1, fresh });
    setFlash(response, this.cookies, this.encryption, session.id, { ...fresh });
    response.redirect(303, pathOf(gateway, fresh.endpointId));
  }

  /** The vendor-level switches apply here as to every token: staff who turn off an API's webhook abilities turn off these pages too. */
  async assertVendorMay(session: DashboardSession, ability: 'webhooks:read' | 'webhooks:write'): Promise<void> {
    if (!(await this.vendors.get(session.vendorId)).enabledAbilities.includes(ability)) {
      throw new PageForbidden(`Webhooks${ability === 'webhooks:write' ? ' changes' : ''} are not enabled for your account; platform staff enable them.`);
    }
  }

  async renderList(response: Response, session: DashboardSession, status: number, state: { form?: CreateEndpointForm; errors?: Record<string, string[]> }): Promise<void> {
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

  async renderDetail(
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
