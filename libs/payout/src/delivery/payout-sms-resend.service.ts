import { Injectable, Logger } from '@nestjs/common';
import { RateLimitedError } from '#common';
import { ProviderRejectedError } from '#providers';
import type { VendorPrincipal } from '#auth';
import { CASH_RAIL_METHODS } from '../model/payout-method-catalogue.js';
import { MethodUnavailableError, PayoutNotPaidError, ProviderRejectedRequestError, ProviderUnavailableError } from '../model/payout-errors.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutRails } from '../provider/payout-rails.js';
import type { SmsResendOutcome } from '../model/payout-record.js';

/** The contract's cooldown; used when the provider refuses without saying how long to wait. */
export const SMS_RESEND_COOLDOWN_SECONDS = 30 * 60;

/**
 * `POST /payouts/{reference}/resend-sms`: asks the cash-send rail to send the collection SMS
 * again. It never creates a payout. The provider owns the cap and the 30-minute cooldown; a
 * cooldown it reports is remembered, so requests during it are answered here without calling
 * the provider again.
 */
@Injectable()
export class PayoutSmsResendService {
  private readonly logger = new Logger(PayoutSmsResendService.name);

  constructor(
    private readonly payouts: PayoutRepository,
    private readonly evidence: PayoutEvidenceRepository,
    private readonly rails: PayoutRails,
  ) {}

  async resendSms(principal: VendorPrincipal, reference: string): Promise<void> {
    const payout = await this.payouts.requireByReference(principal.vendorId, reference);
    if (!CASH_RAIL_METHODS.includes(payout.method)) {
      throw new MethodUnavailableError({ method: [`${payout.method} has no provider SMS; only bank_a_instant_money and bank_b_cardless do`] });
    }
    if (payout.status !== 'paid') throw new PayoutNotPaidError();

    const remaining = await this.evidence.smsCooldownSeconds(payout.id);
    if (remaining > 0) {
      await this.record(principal, payout.id, 'rate_limited', null);
      throw new RateLimitedError('RATE_LIMITED', remaining);
    }

    try {
      await this.rails.resendSms(payout.method as 'bank_a_instant_money' | 'bank_b_cardless', payout.merchantReference);
    } catch (error) {
      if (error instanceof ProviderRejectedError && error.status === 429) {
        const wait = error.retryAfterSeconds && error.retryAfterSeconds > 0 ? error.retryAfterSeconds : SMS_RESEND_COOLDOWN_SECONDS;
        await this.record(principal, payout.id, 'rate_limited', new Date(Date.now() + wait * 1000));
        throw new RateLimitedError('RATE_LIMITED', wait);
      }
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown) {
        this.logger.warn({ payoutId: payout.id, status: error.status, providerCode: error.providerCode }, 'Provider refused the SMS resend');
        await this.record(principal, payout.id, 'provider_refused', null);
        throw new ProviderRejectedRequestError();
      }
      this.logger.warn({ payoutId: payout.id, err: (error as Error).message }, 'SMS resend unanswered');
      await this.record(principal, payout.id, 'provider_unavailable', null);
      throw new ProviderUnavailableError();
    }
    await this.record(principal, payout.id, 'sent', null);
  }

  private async record(principal: VendorPrincipal, payoutId: string, outcome: SmsResendOutcome, cooldownUntil: Date | null): Promise<void> {
    await this.evidence.recordSmsResend({ vendorId: principal.vendorId, payoutId, tokenId: principal.tokenId, outcome, cooldownUntil });
  }
}
