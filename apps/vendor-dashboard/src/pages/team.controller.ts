import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, FieldEncryption } from '#common';
import { TokenService } from '#auth';
import { GatewayEnv } from '#config';
import { DASHBOARD_ROLES, DashboardAccounts, DashboardAuditService, type Actor, type DashboardSession } from '#dashboard';
import { auditDetails, csrfField, CurrentSession, errorSummary, html, Mailer, type SafeHtml, SessionCookies, sessionOf, setFlash, takeFlash, when } from '#web';
import { WebhookEndpointsService } from '#webhooks';
import { actorOf, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';

const TOKENS_STAY = 'Removing a person ends their dashboard sessions but does not revoke any API token: tokens belong to the vendor. Revoke tokens on the API tokens page.';

interface NewInvite extends Record<string, unknown> {
  email: string;
  url: string;
  expiresAt: string;
  mailed: boolean;
}

function inviteNotice(invite: NewInvite): SafeHtml {
  return html`<section class="notice" aria-labelledby="invite-made"><h2 id="invite-made">Invite created</h2>
<p>${invite.mailed ? `We mailed this one-time link to ${invite.email}; you can also send it yourself.` : `Send this one-time link to ${invite.email} (it could not be mailed).`} It works once and expires ${when(new Date(invite.expiresAt))}; it is not shown again.</p>
<p class="secret" id="invite-link">${invite.url}</p><p><button type="button" data-copy="invite-link">Copy link</button> <span id="invite-link-status" role="status"></span></p></section>`;
}

@Controller()
@RequirePermission('team:manage')
export class TeamController {
  constructor(
    private readonly accounts: DashboardAccounts,
    private readonly audit: DashboardAuditService,
    private readonly tokens: TokenService,
    private readonly mailer: Mailer,
    @Inject(GatewayEnv) private readonly config: GatewayEnv,
    private readonly encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
    private readonly webhooks: WebhookEndpointsService,
  ) {}

  @Get('team')
  async team(@Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const session = sessionOf(request);
    const invite = this.encryption.isConfigured ? takeFlash<NewInvite>(request, response, this.cookies, this.encryption, session.id) : null;
    await this.render(response, session, 200, invite ? { notice: inviteNotice(invite) } : {});
  }

  /** Creates the invite, then redirects (post/redirect/get): reloading the page cannot make a second one. */
  @Post('team/invite')
  async invite(@Body() form: { email?: string; role?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.change(request, response, async (session, actor) => {
      const invite = await this.accounts.invite(session.vendorId, String(form.email ?? ''), String(form.role ?? ''), actor);
      const url = `${this.config.DASHBOARD_PUBLIC_URL.replace(/\/+$/, '')}/invite?token=${invite.secret}`;
      const mailed = await this.mailer.send({
        to: invite.email,
        subject: `You are invited to ${session.vendorName}'s vendor dashboard`,
        text: `${session.email} invited you to the vendor dashboard of ${session.vendorName} as ${invite.role}.\n\nChoose your password here:\n${url}\n\nThe link works once and expires ${when(invite.expiresAt)}.\n`,
      });
      const created: NewInvite = { email: invite.email, url, expiresAt: invite.expiresAt.toISOString(), mailed };
      if (!this.encryption.isConfigured) return inviteNotice(created);
      setFlash(response, this.cookies, this.encryption, session.id, { ...created });
    });
  }

  /** Two-step sign-in for everyone on the team, or left to each person. */
  @Post('team/two-step')
  async teamTwoStep(@Body() form: { require?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.change(request, response, async (session, actor) => {
      const required = form.require === 'on';
      await this.accounts.setTeamTwoStep(session.vendorId, required, actor);
      return html`<p class="notice" role="status">${required ? 'Two-step sign-in is now required for everyone on the team. Who has not set it up can only reach their account page until they do.' : 'Two-step sign-in is now up to each person.'}</p>`;
    });
  }

  @Post('team/invites/:id/withdraw')
  async withdrawInvite(@Param('id') id: string, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.change(request, response, (session, actor) => this.accounts.withdrawInvite(session.vendorId, id, actor));
  }

  @Post('team/:id/role')
  async changeRole(@Param('id') id: string, @Body() form: { role?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.change(request, response, (session, actor) => this.accounts.changeRole(session.vendorId, id, String(form.role ?? ''), actor));
  }

  @Get('team/:id/remove')
  async confirmRemove(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const user = await this.accounts.get(session.vendorId, id);
    sendPage(response, {
      title: 'Remove person',
      session,
      current: '/team',
      body: html`<p>Remove <strong>${user.email}</strong> (${user.role}) from ${session.vendorName}?</p><p class="notice">${TOKENS_STAY}</p>
<form method="post" action="/team/${user.id}/remove">${csrfField(session)}<button type="submit" class="danger">Remove ${user.email}</button> <a href="/team">Cancel</a></form>`,
    });
  }

  @Post('team/:id/remove')
  async remove(@Param('id') id: string, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.change(request, response, (session, actor) => this.accounts.remove(session.vendorId, id, actor));
  }

  /**
   * A change to the team by the signed-in person, then back to the team page, or the page with the
   * notice the change returns (201); a validation failure shows the page again (400) with its messages.
   */
  private async change(request: DashboardRequest, response: Response, operation: (session: DashboardSession, actor: Actor) => Promise<SafeHtml | void>): Promise<void> {
    const session = sessionOf(request);
    let notice: SafeHtml | void;
    try {
      notice = await operation(session, actorOf(session, request));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return this.render(response, session, 400, { errors: error.fieldErrors });
      throw error;
    }
    if (notice) return this.render(response, session, 201, { notice });
    response.redirect(303, '/team');
  }

  @Get('audit')
  @RequirePermission('audit:read')
  async auditLog(@CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const events = await this.audit.list(session.vendorId);
    // Subjects and details name people and tokens by id: the page shows the names it can find.
    const names = await this.subjectNames(session.vendorId);
    sendPage(response, {
      title: 'Audit log',
      session,
      current: '/audit',
      body: html`<table><caption class="hint">The latest 200 events, newest first. Times are Johannesburg time.</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Details</th><th scope="col">Address</th></tr></thead>
<tbody>${events.map((event) => html`<tr><td>${when(event.createdAt)}</td><td>${event.actor}</td><td>${event.action}</td><td>${event.subject ? (names.get(event.subject) ?? event.subject) : '—'}</td><td>${auditDetails(event.details, names)}</td><td>${event.address ?? ''}</td></tr>`)}</tbody></table>`,
    });
  }

  /** The vendor's tokens, people and webhook endpoints by id, so the log names them ("token “CI deploy”") instead of showing UUIDs. */
  private async subjectNames(vendorId: string): Promise<Map<string, string>> {
    const [tokens, users, purchaseHooks, payoutHooks] = await Promise.all([
      this.tokens.list(vendorId),
      this.accounts.list(vendorId),
      this.webhooks.list(vendorId, 'purchase'),
      this.webhooks.list(vendorId, 'payout'),
    ]);
    return new Map([
      ...tokens.map((token): [string, string] => [token.id, `token “${token.name ?? token.prefix}”`]),
      ...users.map((user): [string, string] => [user.id, user.email]),
      ...[...purchaseHooks, ...payoutHooks].map((endpoint): [string, string] => [endpoint.id, `webhook endpoint ${endpoint.url}`]),
    ]);
  }

  private async render(response: Response, session: DashboardSession, status: number, state: { errors?: Record<string, string[]>; notice?: SafeHtml } = {}): Promise<void> {
    const [users, invites, twoStepRequired] = await Promise.all([this.accounts.list(session.vendorId), this.accounts.listInvites(session.vendorId), this.accounts.teamRequiresTwoStep(session.vendorId)]);
    const roleOptions = (selected: string) => DASHBOARD_ROLES.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`);
    sendPage(response, {
      title: 'Team',
      session,
      current: '/team',
      body: html`${state.notice ?? ''}${errorSummary(state.errors)}
<p>Owners manage the team; developers manage API tokens; finance manages payouts and batches; viewers only read.</p>
<p class="hint">${TOKENS_STAY}</p>
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-step sign-in</th><th scope="col">Joined</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map(
        (user) => html`<tr><td>${user.email}</td><td>
<form method="post" action="/team/${user.id}/role" class="inline">${csrfField(session)}<label for="role-${user.id}" class="visually-hidden">Role of ${user.email}</label>
<select id="role-${user.id}" name="role">${roleOptions(user.role)}</select> <button type="submit" class="secondary">Change role</button></form></td>
<td>${user.totpEnabled ? 'on' : 'off'}</td><td>${when(user.createdAt)}</td>
<td>${user.id === session.userId ? 'you' : html`<a href="/team/${user.id}/remove">Remove ${user.email}</a>`}</td></tr>`,
      )}</tbody></table>
<h2>Two-step sign-in for the team</h2>
<p id="two-step-policy">${twoStepRequired ? 'Required: everyone signs in with a code from an authenticator app.' : 'Up to each person.'} ${users.filter((user) => !user.totpEnabled).length} of ${users.length} have not set it up.</p>
<form method="post" action="/team/two-step">${csrfField(session)}<input type="hidden" name="require" value="${twoStepRequired ? 'off' : 'on'}">
<button type="submit"${twoStepRequired ? html` class="secondary"` : ''}>${twoStepRequired ? 'Stop requiring two-step sign-in' : 'Require two-step sign-in for everyone'}</button></form>
<h2>Pending invites</h2>
<ul>${
        invites.length
          ? invites.map(
              (invite) => html`<li>${invite.email} as ${invite.role}, expires ${when(invite.expiresAt)}
<form method="post" action="/team/invites/${invite.id}/withdraw" class="inline">${csrfField(session)}<button type="submit" class="secondary">Withdraw invite for ${invite.email}</button></form></li>`,
            )
          : html`<li>None.</li>`
      }</ul>
<h2>Invite a person</h2>
<form method="post" action="/team/invite">${csrfField(session)}
<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required>
<label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions('viewer')}</select>
<p><button type="submit">Create invite link</button></p></form>`,
    }, status);
  }
}
