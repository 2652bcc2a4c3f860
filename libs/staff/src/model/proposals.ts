import { ValidationFailedError } from '#common';
import { parseZarAmount2dp, type Cents } from '#money';

export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected', 'refused', 'withdrawn'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** The least written reason a proposal needs (the table checks it too). */
export const REASON_MIN_LENGTH = 10;

/** A staff action's written reason, trimmed; shorter than REASON_MIN_LENGTH is a validation error on the `reason` field. */
export function requireReason(reason: unknown): string {
  const written = typeof reason === 'string' ? reason.trim() : '';
  if (written.length < REASON_MIN_LENGTH) throw new ValidationFailedError({ reason: [`Write why, in at least ${REASON_MIN_LENGTH} characters.`] });
  return written;
}

/** A form's ZAR amount with two decimals, exactly in cents; anything else, or less than `least`, is a validation error on `field`. */
export function requireZarCents(value: unknown, field: string, message: string, least: Cents = 0n): Cents {
  try {
    const cents = parseZarAmount2dp(String(value ?? '').trim());
    if (cents >= least) return cents;
  } catch {
    // Reported below with the field's message.
  }
  throw new ValidationFailedError({ [field]: [message] });
}

export interface Proposal {
  id: string;
  kind: string;
  subjectType: string;
  subjectId: string;
  vendorId: string | null;
  params: Record<string, unknown>;
  reason: string;
  status: ProposalStatus;
  proposedBy: string;
  proposedByEmail: string;
  proposedAt: Date;
  decidedBy: string | null;
  decidedByEmail: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
}
