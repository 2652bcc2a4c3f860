import { NO_RESENDS_YET, SMS_RESEND_CAP, SMS_RESEND_COOLDOWN_MS, decideSmsResend, type SmsResendState } from './sms-resend-policy.js';

function resendTimes(state: SmsResendState, nowMs: number, times: number): SmsResendState {
  let current = state;
  for (let index = 0; index < times; index++) {
    const decision = decideSmsResend(current, nowMs);
    if (!decision.allowed) throw new Error(`resend ${index + 1} was refused`);
    current = decision.next;
  }
  return current;
}

describe('decideSmsResend', () => {
  it('allows the cap back to back, counting down what remains', () => {
    const first = decideSmsResend(NO_RESENDS_YET, 0);
    expect(first).toMatchObject({ allowed: true, remaining: SMS_RESEND_CAP - 1 });
    const atCap = resendTimes(NO_RESENDS_YET, 0, SMS_RESEND_CAP);
    expect(atCap.cooldownEndsAt).toBe(SMS_RESEND_COOLDOWN_MS);
  });

  it('refuses during the cooldown with the seconds left, rounded up', () => {
    const atCap = resendTimes(NO_RESENDS_YET, 1_000, SMS_RESEND_CAP);
    expect(decideSmsResend(atCap, 1_000)).toEqual({ allowed: false, retryAfterSeconds: 1800 });
    expect(decideSmsResend(atCap, 1_000 + SMS_RESEND_COOLDOWN_MS - 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('starts a fresh allowance once the cooldown is over', () => {
    const atCap = resendTimes(NO_RESENDS_YET, 0, SMS_RESEND_CAP);
    const after = decideSmsResend(atCap, SMS_RESEND_COOLDOWN_MS);
    expect(after).toMatchObject({ allowed: true, remaining: SMS_RESEND_CAP - 1 });
    expect(() => resendTimes(atCap, SMS_RESEND_COOLDOWN_MS, SMS_RESEND_CAP)).not.toThrow();
    expect(() => resendTimes(atCap, SMS_RESEND_COOLDOWN_MS, SMS_RESEND_CAP + 1)).toThrow('resend 4 was refused');
  });
});
