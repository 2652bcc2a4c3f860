import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COMMON_ERRORS, type ApiEnvelopeFormat, type ErrorCatalogue } from '#common';
import { PAYOUT_ERRORS } from '#payout';

/** Every code the payout API answers with: its status and the fixed message the contract requires. */
const CATALOGUE = { ...COMMON_ERRORS, ...PAYOUT_ERRORS } as const satisfies ErrorCatalogue;
export type PayoutApiErrorCode = keyof typeof CATALOGUE;

export class ErrorEnvelopeSchema {
  @ApiProperty({ enum: [false] })
  success: boolean;
  @ApiProperty({ enum: Object.keys(CATALOGUE) })
  code: string;
  @ApiProperty({ description: 'Fixed per code, user-safe' })
  message: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, example: { 'recipient.id_number': ['id_number is not a valid South African ID number'] } })
  errors: Record<string, string[]>;
  @ApiPropertyOptional({ description: 'Only on 5xx answers, for support' })
  request_id?: string;
}

/**
 * The payout contract's envelope: `{success: true, data}` and
 * `{success: false, code, message, errors: {"field.path": [...]}, ...details, request_id?}`.
 */
export const PAYOUT_ENVELOPE: ApiEnvelopeFormat<PayoutApiErrorCode> = {
  catalogue: CATALOGUE,
  // The general throttle has its own code; RATE_LIMITED is the SMS resend cooldown's (the contract's).
  rateLimitCode: 'API_RATE_LIMITED',
  success: (data) => ({ success: true, data }),
  error: ({ code, message, details, fieldErrors, requestId }) => {
    const correlation = requestId === undefined ? {} : { request_id: requestId };
    return { success: false, code, message, errors: fieldErrors, ...details, ...correlation };
  },
  openApi: {
    errorModel: ErrorEnvelopeSchema,
    successMembers: { success: { type: 'boolean', enum: [true] } },
    errorCodesSchema: (codes) => ({ type: 'object', properties: { code: { type: 'string', enum: codes } } }),
    exampleFieldErrors: { amount: ['must be a decimal string with two decimals'] },
    describeErrors: (entries) => entries.map(([code, entry]) => `\`${code}\`: ${entry.message}`).join(' | '),
  },
};
