import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { FourEyes, STAFF_ROLES, StaffAccounts, type StaffSession, type StaffUser } from '#staff';
import { html, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { decisionForm, reasonField, submitDecisionForm } from '../web/form-action.js';
import { csrfField, sendPage } from '../web/layout.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';

const roleOptions = (selected?: string) => STAFF_ROLES.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`);

/**
 * Staff accounts (admins). New accounts and role changes are four-eyes proposals another admin
 * approves; disabling an account and resetting a lost second factor take effect at once, since
 * they only take access away.
 */
@Controller('staff')
export class StaffController {
  constructor(
    private readonly accounts: StaffAccounts,
    private readonly fourEyes: FourEyes,
  ) {}

  @Get()
  @RequireStaffPermission('staff:manage')
  async page(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), 200);
  }

  @Post('propose')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async proposeNew(@Body() form: { email?: string; role?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.propose(response, request, 'staff.create', String(form.email ?? ''), { role: form.role }, form.reason);
  }

  @Post(':id/role')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async proposeRole(@Param('id') id: string, @Body() form: { role?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.propose(response, request, 'staff.role', id, { role: form.role }, form.reason);
  }

  @Post(':id/disable')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async disable(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const user = await this.accounts.disable(id, deciderOf(request));
    await this.render(response, sessionOf(request), 200, html`<p class="notice" role="status">${user.email} is disabled; their sessions ended.</p>`);
  }

  @Post(':id/reset-totp')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async resetTotp(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const link = await this.accounts.resetSecondFactor(id, deciderOf(request));
    const url = `${request.protocol}://${request.get('host') ?? 'localhost'}/setup?token=${link.secret}`;
    const notice = html`<p class="notice" role="status">The second factor of ${link.user.email} is cleared and their sessions ended. Give them this one-time link (24 hours) to enrol a new authenticator:</p><p class="secret" id="setup-link">${url}</p>`;
    await this.render(response, sessionOf(request), 200, notice);
  }

  private propose(response: Response, request: StaffRequest, kind: string, subjectId: string, params: Record<string, unknown>, reason: unknown): Promise<void> {
    return submitDecisionForm(
      response,
      async () => `/proposals/${(await this.fourEyes.propose(kind, subjectId, params, reason, deciderOf(request))).id}`,
      (status, notice) => this.render(response, sessionOf(request), status, notice),
    );
  }

  private async render(response: Response, session: StaffSession, status: number, notice: SafeHtml = html``): Promise<void> {
    const users = await this.accounts.list();
    const newAccount = html`<label for="new-email">Email</label><input id="new-email" name="email" type="email" required>
<label for="new-role">Role</label><select id="new-role" name="role">${roleOptions('support')}</select>`;
    sendPage(response, {
      title: 'Staff',
      session,
      current: '/staff',
      body: html`${notice}
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map((user) => this.row(user, session))}</tbody></table>
<h2>Propose a new staff account</h2>
<p class="hint">Another admin approves it; the approver then sees the one-time setup link to hand over.</p>
${decisionForm(session, '/staff/propose', newAccount, 'new-reason', 'Propose account')}`,
    }, status);
  }

  private row(user: StaffUser, session: StaffSession): SafeHtml {
    const state = user.disabledAt ? 'disabled' : user.active ? 'active' : user.setupPending ? 'setup pending' : 'setup expired';
    const actions =
      user.disabledAt || user.id === session.staffUserId
        ? html`—`
        : html`<form method="post" action="/staff/${user.id}/role">${csrfField(session)}<label for="role-${user.id}">New role</label><select id="role-${user.id}" name="role">${roleOptions(user.role)}</select>
${reasonField(`reason-${user.id}`)}<button type="submit">Propose role change</button></form>
<form method="post" action="/staff/${user.id}/reset-totp" class="inline">${csrfField(session)}<button type="submit" class="secondary">Reset authenticator</button></form>
<form method="post" action="/staff/${user.id}/disable" class="inline">${csrfField(session)}<button type="submit" class="danger">Disable</button></form>`;
    return html`<tr><td>${user.email}</td><td>${user.role}</td><td>${state}</td><td>${when(user.createdAt)}</td><td>${actions}</td></tr>`;
  }
}
