import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ValidationFailedError } from '#common';
import type { Response } from 'express';
import { FourEyes, requireReason, STAFF_ROLES, StaffAccounts, type StaffSession, type StaffUser } from '#staff';
import { errorSummary, html, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { confirmationBody, decisionForm, isConfirmed, reasonField, submitDecisionForm } from '../web/form-action.js';
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

  /** Two steps: the first says what disabling does to whom; the confirmed second, with a reason, disables. */
  @Post(':id/disable')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async disable(@Param('id') id: string, @Body() form: { confirmed?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const user = await this.accounts.get(id);
    const consequences = html`Disable <strong>${user.email}</strong> (${user.role})? They are signed out everywhere at once and can no longer sign in. Any proposal they made stays as it is. Another admin can enable the account again later (four-eyes); their password and authenticator then work as before.`;
    const ask = (status: number, notice: SafeHtml) => this.confirm(response, request, user, 'disable', 'Disable a staff account', html`${notice}${consequences}`, `Disable ${user.email}`, status);
    if (!isConfirmed(form)) return ask(200, html``);
    // The staff list shows the account disabled, with the time.
    await submitDecisionForm(response, async () => (await this.accounts.disable(id, deciderOf(request), requireReason(form.reason)), '/staff'), async (status, notice) => ask(status, notice));
  }

  /** A disabled account comes back through four eyes: giving access back waits for a second admin. */
  @Post(':id/enable')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async proposeEnable(@Param('id') id: string, @Body() form: { reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.propose(response, request, 'staff.enable', id, {}, form.reason);
  }

  @Post(':id/reset-totp')
  @HttpCode(200)
  @RequireStaffPermission('staff:manage')
  async resetTotp(@Param('id') id: string, @Body() form: { confirmed?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    if (!isConfirmed(form)) {
      const user = await this.accounts.get(id);
      return this.confirm(response, request, user, 'reset-totp', 'Reset an authenticator', html`Reset the authenticator of <strong>${user.email}</strong> (${user.role})? Their current authenticator stops working, they are signed out everywhere, and the next page shows a one-time link (24 hours) with which they enrol a new one. Only do this when you have confirmed who is asking.`, 'Reset authenticator of ' + user.email);
    }
    let reason: string;
    try {
      reason = requireReason(form.reason);
    } catch (error) {
      const user = await this.accounts.get(id);
      if (!(error instanceof ValidationFailedError)) throw error;
      return this.confirm(response, request, user, 'reset-totp', 'Reset an authenticator', html`${errorSummary(error.fieldErrors)}Reset the authenticator of <strong>${user.email}</strong>?`, 'Reset authenticator of ' + user.email, 400);
    }
    const link = await this.accounts.resetSecondFactor(id, deciderOf(request), reason);
    const url = `${request.protocol}://${request.get('host') ?? 'localhost'}/setup?token=${link.secret}`;
    const notice = html`<p class="notice" role="status">The second factor of ${link.user.email} is cleared and their sessions ended. Give them this one-time link (24 hours) to enrol a new authenticator:</p><p class="secret" id="setup-link">${url}</p>`;
    await this.render(response, sessionOf(request), 200, notice);
  }

  private confirm(response: Response, request: StaffRequest, user: StaffUser, action: string, title: string, consequences: SafeHtml, button: string, status = 200): void {
    const session = sessionOf(request);
    sendPage(response, { title, session, current: '/staff', body: confirmationBody(session, { title, consequences, action: `/staff/${user.id}/${action}`, fields: {}, button, cancel: '/staff' }) }, status);
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
    const state = user.disabledAt ? `disabled ${when(user.disabledAt)}` : user.active ? 'active' : user.setupPending ? 'setup pending' : 'setup expired';
    const actions =
      user.id === session.staffUserId
        ? html`—`
        : user.disabledAt
          ? html`<form method="post" action="/staff/${user.id}/enable">${csrfField(session)}${reasonField(`enable-reason-${user.id}`, `Why enable ${user.email} again`)}<button type="submit" class="secondary">Propose enabling ${user.email} again</button></form>`
          : html`<form method="post" action="/staff/${user.id}/role">${csrfField(session)}<label for="role-${user.id}">New role</label><select id="role-${user.id}" name="role">${roleOptions(user.role)}</select>
${reasonField(`reason-${user.id}`)}<button type="submit">Propose role change</button></form>
<form method="post" action="/staff/${user.id}/reset-totp" class="inline">${csrfField(session)}<button type="submit" class="secondary">Reset authenticator…</button></form>
<form method="post" action="/staff/${user.id}/disable" class="inline">${csrfField(session)}<button type="submit" class="danger">Disable…</button></form>`;
    return html`<tr><td>${user.email}</td><td>${user.role}</td><td>${state}</td><td>${when(user.createdAt)}</td><td>${actions}</td></tr>`;
  }
}
