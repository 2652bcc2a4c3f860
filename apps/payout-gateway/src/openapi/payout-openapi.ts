import { apiEnvelopeDecorator, apiErrorsDecorator } from '#common';
import { PAYOUT_METHOD_CATALOGUE } from '#payout';
import { PAYOUT_ENVELOPE } from '../http/payout-envelope.js';

/** `{success: true, data: <schema>}` (or an array of it; `null`: data is null). */
export const ApiEnvelope = apiEnvelopeDecorator(PAYOUT_ENVELOPE);

/** Error answers by status, each listing its codes (the catalogue fixes status and message per code). */
export const ApiPayoutErrors = apiErrorsDecorator(PAYOUT_ENVELOPE);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * A bank method (`rtc_eft`) pays into a bank account, so its recipient must carry one (the API
 * answers 422 on `recipient.bank_account` otherwise); the decorators can only mark it optional.
 */
export function refinePayoutSchemas(schemas: Record<string, Json>): void {
  const bankMethods = Object.values(PAYOUT_METHOD_CATALOGUE)
    .filter((definition) => definition.requiresBankAccount)
    .map((definition) => definition.method);
  schemas.PayoutRequest.if = { type: 'object', required: ['method'], properties: { method: { enum: bankMethods } } };
  schemas.PayoutRequest.then = {
    type: 'object',
    properties: { recipient: { type: 'object', required: ['bank_account'], properties: { bank_account: { $ref: '#/components/schemas/BankAccount' } } } },
  };
}
