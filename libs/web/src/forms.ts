import { parseIsoDay } from '#common';
import { html, type SafeHtml } from './html.js';
import { PASSWORD_MIN_LENGTH } from './passwords.js';

/** Field errors as a list tied to the form by aria-describedby. */
export function errorSummary(errors: Record<string, string[]> | undefined): SafeHtml {
  if (!errors || Object.keys(errors).length === 0) return html``;
  return html`<div class="errors" role="alert" id="form-errors"><h2>There is a problem</h2><ul>${Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => html`<li>${field === '_' ? '' : html`<strong>${field}</strong>: `}${message}</li>`),
  )}</ul></div>`;
}

export interface SignInFormState {
  /** Where to go after signing in (already checked by safeNext); the form posts to /sign-in with it. */
  next: string;
  /** The pre-session double-submit value (SessionCookies.newPreSession). */
  pre: string;
  email?: string;
  errors?: Record<string, string[]>;
  /** How the code field is introduced: optional on the vendor dashboard, required for staff. */
  totpLabel: SafeHtml;
  totpRequired: boolean;
}

/** The sign-in form of both signed-in apps: email, password, authenticator code. */
export function signInFormBody(state: SignInFormState): SafeHtml {
  const describedBy = state.errors ? html` aria-describedby="form-errors"` : html``;
  const action = state.next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(state.next)}`;
  return html`${errorSummary(state.errors)}
<form method="post" action="${action}" novalidate>
  <input type="hidden" name="_pre" value="${state.pre}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}"${describedBy}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}>
  <label for="totp">${state.totpLabel}</label>
  <input id="totp" name="totp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*"${state.totpRequired ? html` required` : ''}>
  <p><button type="submit">Sign in</button></p>
</form>`;
}

/** A new password and its confirmation (the invite and setup-link forms); the server checks that they agree and the policy. */
export function newPasswordFields(label = 'Password'): SafeHtml {
  return html`<label for="password">${label}</label>
  <p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a good password.</p>
  <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="password-hint">
  <label for="confirm">${label} again</label>
  <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>`;
}

/** A date field of a filter form as an ISO day, by the APIs' own rule (real calendar dates only); undefined when empty or not one. */
export function isoDayOrUndefined(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return parseIsoDay(value);
  } catch {
    return undefined;
  }
}
