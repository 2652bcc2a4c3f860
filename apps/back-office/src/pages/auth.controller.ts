import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { actorOf, StaffAccounts, StaffAuditLog, type StaffSession, StaffSessions } from '#staff';
import { clientAddress, errorSummary, html, newPasswordFields, PublicPage, SessionCookies, SignInFlow, SignInLimiter, SignInRoutes, submitNewPassword, totpQrCode, totpUri } from '#web';
import { AnyStaff } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { CurrentSession, type StaffRequest } from '../web/staff-request.js';

type SigningIn = NonNullable<Awaited<ReturnType<StaffAccounts['checkCredentials']>>>;

/** Sign-in with both factors (every role), sign-out, and the one-time setup link. */
@Controller()
export class AuthController extends SignInRoutes<SigningIn> {
  constructor(
    private readonly accounts: StaffAccounts,
    private readonly sessions: StaffSessions,
    private readonly audit: StaffAuditLog,
    limiter: SignInLimiter,
    private readonly cookies: SessionCookies,
  ) {
    super(
      new SignInFlow<SigningIn>({
        cookies,
        limiter,
        verify: async ({ email, password, totp }) => {
          const user = await accounts.checkCredentials(email, password, totp);
          // One message for every wrong factor and for unknown emails: the form reveals nothing about accounts.
          if (!user) return { refused: 'The email, password or code is not right.' };
          return { user };
        },
        sessions,
        start: (user) => sessions.start({ staffUserId: user.id }),
        audit: (user, address) => audit.record({ actor: { staffUserId: user.id, label: user.email, address }, action: 'session.signed_in', subjectType: 'staff_user', subjectId: user.id }),
        page: {
          title: 'Staff sign-in',
          totpLabel: html`Authenticator code`,
          totpRequired: true,
          after: html`<p class="hint">Internal staff only. A new account starts from the one-time setup link an admin gives you.</p>`,
        },
        send: sendPage,
      }),
    );
  }

  @Post('sign-out')
  @AnyStaff()
  async signOut(@CurrentSession() session: StaffSession, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.sessions.end(session.id);
    await this.audit.record({ actor: actorOf(session, clientAddress(request)), action: 'session.signed_out', subjectType: 'staff_user', subjectId: session.staffUserId });
    this.cookies.signOut(response);
  }

  /** The link's secret travels as `?token=`, which the request log redacts. */
  @Get('setup')
  @PublicPage()
  async setupPage(@Query('token') token: string | undefined, @Res() response: Response): Promise<void> {
    const setup = await this.accounts.setup(token);
    if (!setup) return this.setupForm(response, 404, token, null);
    await this.setupForm(response, 200, token, { email: setup.user.email, hasPassword: setup.hasPassword, ...this.accounts.newEnrolment(setup.user.id) });
  }

  @Post('setup')
  @PublicPage()
  async completeSetup(
    @Query('token') token: string | undefined,
    @Body() form: { password?: string; confirm?: string; enrolment?: string; code?: string; _pre?: string },
    @Req() request: StaffRequest,
    @Res() response: Response,
  ): Promise<void> {
    const setup = await this.accounts.setup(token);
    if (!setup || typeof token !== 'string') return this.setupForm(response, 404, token, null);
    // The same key again while its sealed enrolment holds (the person may have added it already); a new one otherwise.
    const opened = this.accounts.openEnrolment(setup.user.id, form.enrolment);
    const enrolment = opened === null ? this.accounts.newEnrolment(setup.user.id) : { secret: opened, enrolment: form.enrolment as string };
    const state = { email: setup.user.email, hasPassword: setup.hasPassword, ...enrolment };
    const completed = await submitNewPassword(request, this.cookies.preSession, form, {
      // A second-factor reset proves the password the account has; only a new one is typed twice.
      confirm: !setup.hasPassword,
      show: (status, errors) => this.setupForm(response, status, token, state, errors),
      apply: (password) => this.accounts.completeSetup(token, { password, enrolment: form.enrolment, code: form.code }, clientAddress(request)),
    });
    if (!completed) return;
    response.redirect(303, '/sign-in');
  }

  private async setupForm(
    response: Response,
    status: number,
    token: string | undefined,
    setup: { email: string; hasPassword: boolean; secret: string; enrolment: string } | null,
    errors?: Record<string, string[]>,
  ): Promise<void> {
    if (!setup) {
      sendPage(response, { title: 'Setup link not valid', body: html`<p>This setup link is not valid: it was already used, has expired or the account was disabled. Ask an admin for a new one.</p>` }, status);
      return;
    }
    const password = setup.hasPassword
      ? html`<label for="password">Your current password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>`
      : newPasswordFields();
    sendPage(response, {
      title: setup.hasPassword ? 'Set up your authenticator again' : 'Set up your staff account',
      body: html`<p>Account: <strong>${setup.email}</strong>. Staff sign-in always needs a code from an authenticator app.</p>
${errorSummary(errors)}
<form method="post" action="/setup?token=${encodeURIComponent(token ?? '')}">
  <input type="hidden" name="_pre" value="${this.cookies.newPreSession(response)}">
  <input type="hidden" name="email" value="${setup.email}" autocomplete="username">
  ${password}
  <h2>Authenticator</h2>
  <p>Scan this code with an authenticator app:</p>
  <p>${await totpQrCode(totpUri(setup.secret, setup.email, 'Staff back-office'))}</p>
  <p>Or add this key to it (manual entry, time-based), or open the link on the phone that has the app:</p>
  <p class="secret" id="totp-key">${setup.secret}</p>
  <p><a href="${totpUri(setup.secret, setup.email, 'Staff back-office')}">Open in authenticator app</a></p>
  <input type="hidden" name="enrolment" value="${setup.enrolment}">
  <label for="code">Code shown by the app</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
  <p><button type="submit">Finish setup</button></p>
</form>`,
    }, status);
  }
}
