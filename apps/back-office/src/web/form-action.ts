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
