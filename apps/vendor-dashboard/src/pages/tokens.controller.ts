import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ALL_ABILITIES, TokenService, VendorService } from '#auth';
import { DomainError, FieldEncryption } from '#common';
import { DashboardAccounts, DashboardAuditService, type DashboardSession, roleMayGrantAbility } from '#dashboard';
import { csrfField, CurrentSession, errorSummary, html, type SafeHtml, SessionCookies, sessionOf, setFlash, takeFlash, when } from '#web';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';

/** Expiry choices; 90 days is the longest a dashboard user may pick (longer needs staff). */
export const TOKEN_LIFETIMES: { value: string; label: string; seconds: number }[] = [
  { value: '1d', label: '1 day', seconds: 86_400 },
  { value: '7d', label: '7 days', seconds: 7 * 86_400 },
  { value: '30d', label: '30 days', seconds: 30 * 86_400 },
  { value: '90d', label: '90 days', seconds: 90 * 86_400 },
];

/** A token just created: the secret travels once, sealed, from the POST to the page it redirects to. */
interface NewToken extends Record<string, unknown> {
  id: string;
  secret: string;
  name: string;
}

interface CreateTokenForm {
  name?: string;
  abilities?: string | string[];
  expires_in?: string;
}

@Controller('tokens')
@RequirePermission('tokens:manage')
export class TokensController {
  constructor(
    private readonly tokens: TokenService,
    private readonly vendors: VendorService,
    private readonly accounts: DashboardAccounts,
    private readonly audit: DashboardAuditService,
    private readonly encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
  ) {}

  @Get()
  async list(@Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    const issued = this.encryption.isConfigured ? takeFlash<NewToken>(request, response, this.cookies, this.encryption, session.id) : null;
    await this.render(response, session, 200, issued ? { issued } : {});
  }

  @Post()
  async create(@Body() form: CreateTokenForm, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const vendor = await this.vendors.get(session.vendorId);
    const abilities = ([] as string[]).concat(form.abilities ?? []).filter((item) => typeof item === 'string');
    const lifetime = TOKEN_LIFETIMES.find((choice) => choice.value === form.expires_in);
    const errors: Record<string, string[]> = {};
    const name = typeof form.name === 'string' ? form.name.trim() : '';
    if (name.length === 0) errors.name = ['Give the token a name, such as the system that will use it.'];
    if (abilities.length === 0) errors.abilities = ['Choose at least one ability.'];
    const notEnabled = abilities.filter((ability) => !vendor.enabledAbilities.includes(ability));
    const beyondRole = abilities.filter((ability) => !roleMayGrantAbility(session.role, ability));
    if (notEnabled.length > 0) errors.abilities = [`Not enabled for your account: ${notEnabled.join(', ')}.`];
    else if (beyondRole.length > 0) errors.abilities = [`Your role (${session.role}) cannot create tokens with ${beyondRole.join(', ')}; ask an owner.`];
    if (!lifetime) errors.expires_in = ['Choose an expiry.'];
    if (Object.keys(errors).length > 0) return this.render(response, session, 400, { errors, form });
    try {
      const issued = await this.tokens.issue(session.vendorId, abilities, lifetime!.seconds, { name, createdByUserId: session.userId });
      const details = { name, abilities: issued.abilities, expires_at: issued.expires_at };
      await this.audit.record(auditEvent(session, request, { action: 'token.created', subject: issued.id, details }));
      const created: NewToken = { id: issued.id, secret: issued.token, name };
      // Without field encryption (a bare test set-up) the secret is answered directly, as before.
      if (!this.encryption.isConfigured) return this.render(response, session, 201, { issued: created });
      setFlash(response, this.cookies, this.encryption, session.id, { ...created });
      response.redirect(303, '/tokens');
    } catch (error) {
      if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return this.render(response, session, 400, { errors: error.fieldErrors, form });
      throw error;
    }
  }

  /** A confirmation step that works without JavaScript: revoking cannot be undone. */
  @Get(':id/revoke')
  async confirmRevoke(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const token = (await this.tokens.list(session.vendorId)).find((item) => item.id === id && item.status === 'active');
    if (!token) {
      sendPage(response, { title: 'Not found', session, body: html`<p>There is no active token with this id in your account.</p><p><a href="/tokens">Back to API tokens</a></p>` }, 404);
      return;
    }
    sendPage(response, {
      title: 'Revoke token',
      session,
      current: '/tokens',
      body: html`<p>Revoke <strong>${token.name ?? token.prefix}</strong> (<code>${token.prefix}…</code>)? Every system using it is refused from the next request on. This cannot be undone.</p>
<form method="post" action="/tokens/${token.id}/revoke">${csrfField(session)}<button type="submit" class="danger">Revoke token</button> <a href="/tokens">Cancel</a></form>`,
    });
  }

  @Post(':id/revoke')
  async revoke(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    // Scoped by vendor: another vendor's token id is a 404 and stays valid.
    const revoked = await this.tokens.revoke(id, session.vendorId);
    await this.audit.record(auditEvent(session, request, { action: 'token.revoked', subject: revoked.id }));
    response.redirect(303, '/tokens');
  }

  private async render(
    response: Response,
    session: DashboardSession,
    status: number,
    state: { errors?: Record<string, string[]>; form?: CreateTokenForm; issued?: NewToken },
  ): Promise<void> {
    const [vendor, tokens, users] = await Promise.all([this.vendors.get(session.vendorId), this.tokens.list(session.vendorId), this.accounts.list(session.vendorId)]);
    const emails = new Map(users.map((user) => [user.id, user.email]));
    const chosen = new Set(([] as string[]).concat(state.form?.abilities ?? []));
    const issued: SafeHtml = state.issued
      ? html`<section class="notice" aria-labelledby="new-token"><h2 id="new-token">Token “${state.issued.name}” created</h2>
<p>Copy the secret now: it is shown only this once and cannot be recovered.</p>
<p class="secret" id="token-secret">${state.issued.secret}</p>
<p><button type="button" data-copy="token-secret">Copy secret</button> <span id="token-secret-status" role="status"></span></p></section>`
      : html``;
    const abilityBoxes = ALL_ABILITIES.map((ability) => {
      const why = !vendor.enabledAbilities.includes(ability)
        ? 'not enabled for your account; platform staff enable abilities'
        : roleMayGrantAbility(session.role, ability)
          ? null
          : `your role (${session.role}) cannot use this on the dashboard; an owner can create such a token`;
      const id = `ability-${ability.replace(/[^a-z]/g, '-')}`;
      return html`<div class="checkbox"><input type="checkbox" id="${id}" name="abilities" value="${ability}"${why === null ? '' : html` disabled aria-describedby="${id}-why"`}${chosen.has(ability) && why === null ? html` checked` : ''}><label for="${id}">${ability}</label>${
        why === null ? '' : html` <span class="hint" id="${id}-why">(${why})</span>`
      }</div>`;
    });
    const rows = tokens.map(
      (token) => html`<tr>
<td>${token.name ?? '—'}</td><td><code>${token.prefix}…</code></td><td>${token.abilities.join(', ')}</td>
<td>${token.createdByUserId ? (emails.get(token.createdByUserId) ?? 'former user') : 'platform staff'}</td>
<td>${when(token.createdAt)}</td><td>${when(token.lastUsedAt)}</td><td>${when(token.expiresAt)}</td>
<td class="status-${token.status}">${token.status}</td>
<td>${token.status === 'active' ? html`<a href="/tokens/${token.id}/revoke" aria-label="Revoke ${token.name ?? token.prefix}">Revoke</a>` : ''}</td></tr>`,
    );
    sendPage(response, {
      title: 'API tokens',
      session,
      current: '/tokens',
      body: html`${issued}
<p>Tokens belong to ${session.vendorName}, not to you: they keep working if you leave the team. Revoke a token to stop it.</p>
<h2>Create a token</h2>
${errorSummary(state.errors)}
<form method="post" action="/tokens">${csrfField(session)}
<label for="token-name">Name</label><input id="token-name" name="name" type="text" maxlength="100" required value="${state.form?.name ?? ''}">
<fieldset><legend>Abilities</legend>${abilityBoxes}</fieldset>
<label for="expires-in">Expires after</label>
<select id="expires-in" name="expires_in">${TOKEN_LIFETIMES.map((choice) => html`<option value="${choice.value}"${(state.form?.expires_in ?? '30d') === choice.value ? html` selected` : ''}>${choice.label}</option>`)}</select>
<p><button type="submit">Create token</button></p></form>
<h2>Tokens</h2>
<table><caption class="hint">Newest first. Times are Johannesburg time.</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Abilities</th><th scope="col">Created by</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="9">No tokens yet.</td></tr>`}</tbody></table>`,
    }, status);
  }
}
