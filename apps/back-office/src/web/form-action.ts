import type { Response } from 'express';
import { DomainError } from '#common';
import type { FundingOutcome, StaffSession } from '#staff';
import { errorSummary, html, type SafeHtml } from '#web';
import { csrfField } from './layout.js';

/**
 * Every decision form of the back-office: run the operation and redirect where it says (303);
 * a validation error shows the page again, 400, with the messages above the form. Anything else
 * is the exception filter's.
 */
export async function submitDecisionForm(response: Response, operation: () => Promise<string>, showAgain: (status: number, notice: SafeHtml) => Promise<void>): Promise<void> {
  let target: string;
  try {
    target = await operation();
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'VALIDATION_FAILED')) throw error;
    return showAgain(400, errorSummary(error.fieldErrors));
  }
  response.redirect(303, target);
}

/** Where a form that may need a second person leads: the proposal waiting for them, or back to the page. */
export function afterDecision(outcome: FundingOutcome, page: string): string {
  return outcome.applied ? page : `/proposals/${outcome.proposal.id}`;
}

/** The written reason every decision form asks for. */
export function reasonField(id: string, label = 'Why'): SafeHtml {
  return html`<label for="${id}">${label}</label><textarea id="${id}" name="reason" required></textarea>`;
}

/** A decision form: CSRF field, the given fields, the reason, and one submit button. */
export function decisionForm(session: StaffSession, action: string, fields: SafeHtml, reasonId: string, button: string, reasonLabel?: string): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(session)}
${fields}${reasonField(reasonId, reasonLabel)}
<p><button type="submit">${button}</button></p></form>`;
}

/** Set by a confirmation step's own button: the action runs only with it. */
export function isConfirmed(form: { confirmed?: unknown }): boolean {
  return form.confirmed === 'yes';
}

export interface Confirmation {
  /** The page's title, e.g. "Disable a staff account". */
  title: string;
  /** What will happen and to whom, in words. */
  consequences: SafeHtml;
  /** Where the confirmed form posts (the same action as the first step). */
  action: string;
  /** The first step's fields, carried on unchanged (hidden). */
  fields: Record<string, string | string[] | undefined>;
  /** A reason the first step already had, shown for editing. */
  reason?: string;
  reasonLabel?: string;
  button: string;
  cancel: string;
}

/**
 * The second step of a dangerous action, without JavaScript: says what will happen and to whom,
 * asks for the reason (required, recorded in the staff audit with the action) and posts the same
 * fields again with `confirmed=yes`. Cancel is a plain link: nothing has happened yet.
 */
export function confirmationBody(session: StaffSession, confirmation: Confirmation): SafeHtml {
  const hidden = Object.entries(confirmation.fields).flatMap(([name, value]) =>
    value === undefined ? [] : ([] as string[]).concat(value).map((item) => html`<input type="hidden" name="${name}" value="${item}">`),
  );
  return html`<div class="notice" role="alert">${confirmation.consequences}</div>
<form method="post" action="${confirmation.action}">${csrfField(session)}${hidden}<input type="hidden" name="confirmed" value="yes">
<label for="confirm-reason">${confirmation.reasonLabel ?? 'Why (recorded in the staff audit)'}</label><textarea id="confirm-reason" name="reason" required>${confirmation.reason ?? ''}</textarea>
<p><button type="submit" class="danger">${confirmation.button}</button> <a href="${confirmation.cancel}">Cancel</a></p></form>`;
}
