import { Body, Controller, Get, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import { DashboardAccounts, DashboardAuditService, type DashboardSession, DashboardSessions } from '#dashboard';
import { clientAddress, CurrentSession, errorSummary, html, Mailer, newPasswordFields, preSessionMatches, PublicPage, readCookie, SessionCookies, SignInFlow, SignInLimiter, SignInRoutes, submitNewPassword, totpContext, useTotpCode, when } from '#web';
import { auditEvent } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';

type SigningIn = NonNullable<Awaited<ReturnType<DashboardAccounts['checkCredentials']>>>;

@Controller()
export class AuthController extends SignInRoutes<SigningIn> {
  constructor(
    private readonly accounts: DashboardAccounts,
    private readonly sessions: DashboardSessions,
    private readonly audit: DashboardAuditService,
    limiter: SignInLimiter,
    encryption: FieldEncryption,
    private readonly cookies: SessionCookies,
    private readonly mailer: Mailer,
    @Inject(GatewayEnv) private readonly config: GatewayEnv,
  ) {
    super(
      new SignInFlow<SigningIn>({
        cookies,
        limiter,
        verify: async ({ email, password, totp }) => {
          const user = await accounts.checkCredentials(email, password);
          if (user?.totpSecretCiphertext) {
            const sealed = { secret: user.totpSecretCiphertext, context: totpContext(user.id), lastStep: user.totpLastStep === null ? null : Number(user.totpLastStep) };
            if (!(await useTotpCode(encryption, sealed, totp, (step) => accounts.useTotpStep(user.id, step)))) return { refused: 'Enter the 6-digit code from your authenticator app.' };
          }
          // One message for an unknown email and a wrong password, so the form does not reveal accounts.
          if (!user) return { refused: 'The email or password is not right.' };
          return { user };
        },
        sessions,
        start: (user) => sessions.start({ userId: user.id, vendorId: user.vendorId }),
        audit: (user, address) => audit.record({ vendorId: user.vendorId, actorUserId: user.id, actor: user.email, action: 'session.signed_in', address }),
        page: {
          title: 'Sign in',
          totpLabel: html`Authenticator code <span class="hint">(only if you turned on two-step sign-in)</span>`,
          totpRequired: false,
          after: html`
<p><a href="/forgot-password">Forgot your password?</a></p>
<p class="hint">No account yet? Ask your vendor's dashboard owner for an invite.</p>`,
        },
        send: sendPage,
      }),
    );
  }

  @Get()
  home(@Res() response: Response): void {
    response.redirect(303, '/purchases');
  }

  @Post('sign-out')
  async signOut(@CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.sessions.end(session.id);
    await this.audit.record(auditEvent(session, request, { action: 'session.signed_out' }));
    this.cookies.signOut(response);
  }

  @Post('sign-out-everywhere')
  async signOutEverywhere(@CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const ended = await this.sessions.endAllForUser(session.userId);
    await this.audit.record(auditEvent(session, request, { action: 'session.signed_out_everywhere', details: { sessions: ended } }));
    this.cookies.signOut(response);
  }

  /** The invite link carries its secret as `?token=`, which the request log redacts. */
  @Get('invite')
  @PublicPage()
  async invitePage(@Query('token') token: string | undefined, @Res() response: Response): Promise<void> {
    const invite = typeof token === 'string' ? await this.accounts.pendingInvite(token) : null;
    this.inviteForm(response, invite ? 200 : 404, token, invite);
  }

  @Post('invite')
  @PublicPage()
  async acceptInvite(@Query('token') token: string | undefined, @Body() form: { password?: string; confirm?: string; _pre?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const invite = typeof token === 'string' ? await this.accounts.pendingInvite(token) : null;
    if (!invite || typeof token !== 'string') return this.inviteForm(response, 404, token, null);
    await submitNewPassword(request, this.cookies.preSession, form, {
      confirm: true,
      show: (status, errors) => this.inviteForm(response, status, token, invite, errors),
      apply: async (password) => {
        const user = await this.accounts.acceptInvite(token, password, clientAddress(request));
        // As at sign-in: whoever was signed in on this browser before is signed out.
        const previous = await this.sessions.resolve(readCookie(request, this.cookies.session));
        if (previous) await this.sessions.end(previous.id);
        const { secret, expiresAt } = await this.sessions.start({ userId: user.id, vendorId: user.vendorId });
        this.cookies.setSession(response, secret, expiresAt);
        response.redirect(303, '/');
      },
    });
  }

  @Get('forgot-password')
  @PublicPage()
  forgotPasswordPage(@Res() response: Response): void {
    this.forgotPasswordForm(response, 200);
  }

  /**
   * Mails a single-use link, valid for an hour, to the account with this email. The answer is the
   * same whether or not there is one, so the form does not reveal which emails have accounts.
   */
  @Post('forgot-password')
  @PublicPage()
  async forgotPassword(@Body() form: { email?: string; _pre?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    if (!preSessionMatches(request, this.cookies.preSession, form._pre)) return this.forgotPasswordForm(response, 403, { _: ['The form expired. Try again.'] });
    const email = typeof form.email === 'string' ? form.email.trim() : '';
    if (!email) return this.forgotPasswordForm(response, 400, { email: ['Enter the email you sign in with.'] });
    const reset = await this.accounts.requestPasswordReset(email, clientAddress(request));
    if (reset) {
      const link = `${this.config.DASHBOARD_PUBLIC_URL.replace(/\/+$/, '')}/reset-password?token=${reset.secret}`;
      await this.mailer.send({
        to: reset.email,
        subject: 'Reset your vendor dashboard password',
        text: `Someone (we hope you) asked to reset the password of your vendor dashboard account ${reset.email}.\n\nChoose a new password here:\n${link}\n\nThe link works once and expires ${when(reset.expiresAt)}. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
      });
    }
    sendPage(response, {
      title: 'Check your mail',
      body: html`<p role="status">If there is a dashboard account for ${email}, we have sent it a link to choose a new password. The link works once, for an hour.</p><p><a href="/sign-in">Back to sign-in</a></p>`,
    });
  }

  /** The reset link carries its secret as `?token=`, which the request log redacts. */
  @Get('reset-password')
  @PublicPage()
  async resetPasswordPage(@Query('token') token: string | undefined, @Res() response: Response): Promise<void> {
    const reset = typeof token === 'string' ? await this.accounts.pendingPasswordReset(token) : null;
    this.resetPasswordForm(response, reset ? 200 : 404, token, reset);
  }

  @Post('reset-password')
  @PublicPage()
  async resetPassword(@Query('token') token: string | undefined, @Body() form: { password?: string; confirm?: string; _pre?: string }, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const reset = typeof token === 'string' ? await this.accounts.pendingPasswordReset(token) : null;
    if (!reset || typeof token !== 'string') return this.resetPasswordForm(response, 404, token, null);
    const changed = await submitNewPassword(request, this.cookies.preSession, form, {
      confirm: true,
      show: (status, errors) => this.resetPasswordForm(response, status, token, reset, errors),
      apply: (password) => this.accounts.resetPassword(token, password, clientAddress(request)),
    });
    if (!changed) return;
    await this.mailer.send({
      to: reset.email,
      subject: 'Your vendor dashboard password was changed',
      text: `The password of your vendor dashboard account ${reset.email} was reset with a mailed link, ${when(new Date())}. Every session of the account was signed out.\n\nIf this was not you, tell your vendor's dashboard owner at once.\n`,
    });
    sendPage(response, { title: 'Password changed', body: html`<p role="status">Your password is changed and every session of your account was signed out.</p><p><a href="/sign-in">Sign in</a></p>` });
  }

  private forgotPasswordForm(response: Response, status: number, errors?: Record<string, string[]>): void {
    sendPage(response, {
      title: 'Forgot your password?',
      body: html`${errorSummary(errors)}<p>Enter the email you sign in with. We will mail you a link to choose a new password.</p>
<form method="post" action="/forgot-password">
  <input type="hidden" name="_pre" value="${this.cookies.newPreSession(response)}">
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
  <p><button type="submit">Send the link</button></p>
</form>
<p><a href="/sign-in">Back to sign-in</a></p>`,
    }, status);
  }

  private resetPasswordForm(response: Response, status: number, token: string | undefined, reset: { email: string } | null, errors?: Record<string, string[]>): void {
    if (!reset) {
      sendPage(response, { title: 'Link not valid', body: html`<p>This password reset link is not valid: it was already used, has expired or a newer one was sent. <a href="/forgot-password">Ask for a new link</a>.</p>` }, status);
      return;
    }
    sendPage(response, {
      title: 'Choose a new password',
      body: html`<p>For ${reset.email}.</p>${errorSummary(errors)}
<form method="post" action="/reset-password?token=${encodeURIComponent(token ?? '')}">
  <input type="hidden" name="_pre" value="${this.cookies.newPreSession(response)}">
  <input type="hidden" name="email" value="${reset.email}" autocomplete="username">
  ${newPasswordFields()}
  <p><button type="submit">Change password</button></p>
</form>`,
    }, status);
  }

  private inviteForm(response: Response, status: number, token: string | undefined, invite: { email: string; role: string; vendorName: string } | null, errors?: Record<string, string[]>): void {
    if (!invite) {
      sendPage(response, { title: 'Invite not valid', body: html`<p>This invite link is not valid: it was already used, has expired or was withdrawn. Ask for a new one.</p>` }, status);
      return;
    }
    sendPage(response, {
      title: 'Set your password',
      body: html`<p>You were invited to <strong>${invite.vendorName}</strong> as <strong>${invite.role}</strong> (${invite.email}).</p>
${errorSummary(errors)}
<form method="post" action="/invite?token=${encodeURIComponent(token ?? '')}">
  <input type="hidden" name="_pre" value="${this.cookies.newPreSession(response)}">
  <input type="hidden" name="email" value="${invite.email}" autocomplete="username">
  ${newPasswordFields()}
  <p><button type="submit">Create account</button></p>
</form>`,
    }, status);
  }
}
