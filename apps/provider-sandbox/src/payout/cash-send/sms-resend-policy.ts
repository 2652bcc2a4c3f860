/**
 * The cash-send providers' SMS resend rule, as the sandbox plays it:
 * - a paid payment may have its SMS resent up to SMS_RESEND_CAP times back to back;
 * - the resend that reaches the cap starts a SMS_RESEND_COOLDOWN_MS cooldown, during which
 *   every request is refused with the seconds left (HTTP 429 `retry_after_seconds`);
 * - when the cooldown has passed the allowance starts again at zero.
 * A cap-then-cooldown rule (rather than a gap between every resend) lets a recipient who
 * mistyped nothing get a quick second SMS, and still bounds SMS cost per payment.
 */
export const SMS_RESEND_CAP = 3;
export const SMS_RESEND_COOLDOWN_MS = 30 * 60 * 1000;

export interface SmsResendState {
  resendsSinceCooldown: number;
  cooldownEndsAt: number | null;
}

export type SmsResendDecision =
  | { allowed: true; next: SmsResendState; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

export const NO_RESENDS_YET: SmsResendState = { resendsSinceCooldown: 0, cooldownEndsAt: null };

export function decideSmsResend(state: SmsResendState, nowMs: number): SmsResendDecision {
  if (state.cooldownEndsAt !== null && nowMs < state.cooldownEndsAt) {
    return { allowed: false, retryAfterSeconds: Math.ceil((state.cooldownEndsAt - nowMs) / 1000) };
  }
  const resends = (state.cooldownEndsAt === null ? state.resendsSinceCooldown : 0) + 1;
  const reachedCap = resends >= SMS_RESEND_CAP;
  return {
    allowed: true,
    next: { resendsSinceCooldown: resends, cooldownEndsAt: reachedCap ? nowMs + SMS_RESEND_COOLDOWN_MS : null },
    remaining: reachedCap ? 0 : SMS_RESEND_CAP - resends,
  };
}
