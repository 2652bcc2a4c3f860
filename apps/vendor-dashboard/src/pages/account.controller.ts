import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, FieldEncryption } from '#common';
import { DashboardAccounts, type DashboardSession } from '#dashboard';
import { actorOf } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';
import { csrfField, CurrentSession, errorSummary, html, Mailer, newPasswordFields, newTotpSecret, openTotpEnrolment, type SafeHtml, sealTotpEnrolment, sessionOf, totpContext, totpQrCode, totpStep, totpUri, useTotpCode, when } from '#web';

/** The signed-in person's own settings: password and two-step sign-in (TOTP). Every role has it. */
@Controller('account')
export class AccountController {
  constructor(
    private readonly accounts: DashboardAccounts,
    private readonly encryption: FieldEncryption,
    private readonly mailer: Mailer,
  ) {}

  @Get()
  async page(@Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), 200);
  }

  /**
   * Step 1: a new key made here, shown once for the authenticator app; nothing is stored until a
   * code proves the app has it. The form carries it back sealed (sealTotpEnrolment), so the
   * browser never chooses the key.
   */
  @Post('totp')
  @HttpCode(200)
  async start(@CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    if (!this.encryption.isConfigured) return this.render(response, session, 503, { errors: { _: ['Two-step sign-in needs field encryption, which is not configured here.'] } });
    await this.render(response, session, 200, { enrolling: newTotpSecret() });
  }

  /** Step 2: the current password and a code from the app; a borrowed session alone cannot enrol a device. */
  @Post('totp/confirm')
  @HttpCode(200)
  async confirm(
    @Body() form: { enrolment?: string; password?: string; code?: string },
    @CurrentSession() session: DashboardSession,
    @Req() request: DashboardRequest,
    @Res() response: Response,
  ): Promise<void> {
    const secret = openTotpEnrolment(this.encryption, form.enrolment, totpContext(session.userId));
    if (!secret) return this.render(response, session, 400, { errors: { _: ['This setup has expired or is not valid. Start again.'] } });
    const verified = await this.accounts.checkCredentials(session.email, typeof form.password === 'string' ? form.password : '');
    if (verified?.id !== session.userId) {
      return this.render(response, session, 400, { enrolling: secret, errors: { password: ['The password is not right.'] } });
    }
    const step = await totpStep(secret, form.code);
    if (step === null) return this.render(response, session, 400, { enrolling: secret, errors: { code: ['That code does not match. Enter the current 6-digit code from the app.'] } });
    await this.accounts.setTotpSecret(session.vendorId, session.userId, this.encryption.encrypt(secret, totpContext(session.userId)), step, actorOf(session, request));
    await this.notify(session, 'Two-step sign-in turned on', 'Two-step sign-in was turned on for your vendor dashboard account: signing in now also needs a code from your authenticator app.');
    await this.render(response, session, 200, { notice: html`<p class="notice" role="status">Two-step sign-in is on. You will be asked for a code at every sign-in.</p>` });
  }

  /** Turning it off needs a current code, so a borrowed session alone cannot remove the second factor. */
  @Post('totp/disable')
  @HttpCode(200)
  async disable(@Body() form: { code?: string }, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    const current = await this.accounts.totpSecret(session.vendorId, session.userId);
    if (!current) return this.render(response, session, 200);
    const sealed = { secret: current.sealed, context: totpContext(session.userId), lastStep: current.lastStep };
    if (!(await useTotpCode(this.encryption, sealed, form.code, (step) => this.accounts.useTotpStep(session.userId, step)))) {
      return this.render(response, session, 400, { errors: { code: ['That code does not match, or was already used. Wait for the next one.'] } });
    }
    await this.accounts.setTotpSecret(session.vendorId, session.userId, null, null, actorOf(session, request));
    await this.notify(session, 'Two-step sign-in turned off', 'Two-step sign-in was turned off for your vendor dashboard account: signing in needs only your password now.');
    await this.render(response, session, 200, { notice: html`<p class="notice" role="status">Two-step sign-in is off.</p>` });
  }

  /** A new password after the current one; the person's other sessions end, this one goes on. */
  @Post('password')
  @HttpCode(200)
  async changePassword(
    @Body() form: { current_password?: string; password?: string; confirm?: string },
    @CurrentSession() session: DashboardSession,
    @Req() request: DashboardRequest,
    @Res() response: Response,
  ): Promise<void> {
    const next = typeof form.password === 'string' ? form.password : '';
    if (next !== form.confirm) return this.render(response, session, 400, { errors: { password: ['The two passwords differ.'] } });
    try {
      await this.accounts.changePassword(session.vendorId, session.userId, typeof form.current_password === 'string' ? form.current_password : '', next, session.id, actorOf(session, request));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return this.render(response, session, 400, { errors: error.fieldErrors });
      throw error;
    }
    await this.notify(session, 'Your password was changed', 'The password of your vendor dashboard account was changed, and its other sessions were signed out.');
    await this.render(response, session, 200, { notice: html`<p class="notice" role="status">Your password is changed. Your other sessions were signed out.</p>` });
  }

  /** A mail to the person about a change to their sign-in, so a change they did not make does not go unseen. */
  private async notify(session: DashboardSession, subject: string, what: string): Promise<void> {
    await this.mailer.send({
      to: session.email,
      subject,
      text: `${what}\n\nWhen: ${when(new Date())}\nAccount: ${session.email} (${session.vendorName})\n\nIf this was not you, change your password at once and tell your vendor's dashboard owner.\n`,
    });
  }

  private async render(response: Response, session: DashboardSession, status: number, state: { enrolling?: string; errors?: Record<string, string[]>; notice?: SafeHtml } = {}): Promise<void> {
    const enabled = (await this.accounts.totpSecret(session.vendorId, session.userId)) !== null;
    const body = state.enrolling
      ? html`<h3>Set up two-step sign-in</h3>
<p>Scan this code with an authenticator app:</p>
<p>${await totpQrCode(totpUri(state.enrolling, session.email))}</p>
<p>Or add this key to it (manual entry, time-based), or open the link on the phone that has the app:</p>
<p class="secret" id="totp-key">${state.enrolling}</p>
<p><a href="${totpUri(state.enrolling, session.email)}">Open in authenticator app</a></p>
<form method="post" action="/account/totp/confirm">${csrfField(session)}<input type="hidden" name="enrolment" value="${sealTotpEnrolment(this.encryption, state.enrolling, totpContext(session.userId))}">
<label for="password">Your password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Code shown by the app</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<p><button type="submit">Turn on</button></p></form>`
      : enabled
        ? html`<p>Two-step sign-in is <strong>on</strong>.</p>
<form method="post" action="/account/totp/disable">${csrfField(session)}<label for="code">Current code, to turn it off</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<p><button type="submit" class="danger">Turn off two-step sign-in</button></p></form>`
        : html`<p>Two-step sign-in is <strong>off</strong>. With it on, signing in also needs a code from an authenticator app on your phone.</p>
<form method="post" action="/account/totp">${csrfField(session)}<button type="submit">Set up two-step sign-in</button></form>`;
    const password = state.enrolling
      ? html``
      : html`<h2>Password</h2>
<form method="post" action="/account/password">${csrfField(session)}
<input type="hidden" name="email" value="${session.email}" autocomplete="username">
<label for="current_password">Current password</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
${newPasswordFields('New password')}
<p><button type="submit">Change password</button></p></form>`;
    sendPage(response, {
      title: 'Your account',
      session,
      current: '/account',
      body: html`${state.notice ?? ''}${errorSummary(state.errors)}<p>Signed in as ${session.email} (${session.role}).</p><h2>Two-step sign-in</h2>${body}${password}`,
    }, status);
  }
}
