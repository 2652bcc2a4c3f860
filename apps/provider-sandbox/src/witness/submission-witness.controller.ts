import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { JsonBody } from '../json-body.js';
import { PayoutPaymentBook } from '../payout/payout-payment-book.service.js';
import { PAYOUT_PROVIDERS } from '../payout/payout-payment.js';
import { badRequest, notFound } from '../sandbox-errors.js';
import { SubmissionWitness } from './submission-witness.service.js';

/** Sandbox-only endpoints (no real provider has them); still behind the API key. */
@Controller('__sandbox/submissions')
export class SubmissionWitnessController {
  constructor(private readonly witness: SubmissionWitness) {}

  @Get()
  tally(@Query('external_id') externalId?: string, @Query('merchant_reference') merchantReference?: string) {
    if ((externalId === undefined) === (merchantReference === undefined)) {
      throw badRequest('INVALID_QUERY', 'give exactly one of external_id or merchant_reference');
    }
    return externalId !== undefined
      ? { external_id: externalId, ...this.witness.tallyOf('external_id', externalId) }
      : { merchant_reference: merchantReference, ...this.witness.tallyOf('merchant_reference', merchantReference!) };
  }

  @Get('summary')
  summary() {
    return {
      external_ids: this.witness.repeated('external_id').map(({ id, ...tally }) => ({ external_id: id, ...tally })),
      merchant_references: this.witness
        .repeated('merchant_reference')
        .map(({ id, ...tally }) => ({ merchant_reference: id, ...tally })),
    };
  }
}

/** Sandbox-only controls over payout payments (no real provider has them); still behind the API key. */
@Controller('__sandbox/payouts')
export class PayoutControlController {
  constructor(private readonly payouts: PayoutPaymentBook) {}

  /**
   * Control: the provider gives a payout that is still PENDING (test value 04) its final answer
   * now, so tests can show a late answer closing a payout in needs_review. Body:
   * `{ "status": "PAID" | "REJECTED" }`; 404 when the provider holds no pending payment.
   */
  @Post(':provider/:merchantReference/settle')
  @HttpCode(200)
  settlePayout(@Param('provider') provider: string, @Param('merchantReference') merchantReference: string, @Body() raw: unknown) {
    const name = PAYOUT_PROVIDERS.find((candidate) => candidate === provider);
    if (!name) throw notFound('provider');
    const status = JsonBody.of(raw).requiredString('status', /^(PAID|REJECTED)$/) as 'PAID' | 'REJECTED';
    const payment = this.payouts.settleLate(name, merchantReference, status);
    if (!payment) throw notFound('pending payment');
    return { merchant_reference: payment.merchantReference, status: payment.status };
  }
}
