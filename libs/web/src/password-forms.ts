import type { Request } from 'express';
import { DomainError } from '#common';
import { preSessionMatches } from './requests.js';

/** The fields of a form that sets a password from a link (an invite, a password reset, a staff setup link). */
export interface NewPasswordForm {
  password?: unknown;
  confirm?: unknown;
  _pre?: unknown;
}

/**
 * What the invite, password-reset and setup-link forms do once their link is known to be good:
 * the form must come from this browser (the pre-session double submit, against login CSRF), the
 * two passwords must agree (when the form asks for it twice), then `apply`, whose
 * VALIDATION_FAILED (the password policy, a wrong code) the form shows again. False when the
 * form was shown again instead of applied.
 */
export async function submitNewPassword(
  request: Request,
  preSessionCookie: string,
  form: NewPasswordForm,
  steps: { confirm: boolean; show(status: number, errors: Record<string, string[]>): unknown; apply(password: string): Promise<unknown> },
): Promise<boolean> {
  if (!preSessionMatches(request, preSessionCookie, form._pre)) {
    await steps.show(403, { _: ['The form expired. Try again.'] });
    return false;
  }
  const password = typeof form.password === 'string' ? form.password : '';
  if (steps.confirm && password !== form.confirm) {
    await steps.show(400, { password: ['The two passwords differ.'] });
    return false;
  }
  try {
    await steps.apply(password);
    return true;
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
    await steps.show(400, error.fieldErrors);
    return false;
  }
}
