import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COMMON_ERRORS, type ApiEnvelopeFormat, type ErrorCatalogue } from '#common';
import { PURCHASE_ERRORS } from '#purchase';

/** Every code the purchase API answers with: its status and message. */
const CATALOGUE = { ...COMMON_ERRORS, ...PURCHASE_ERRORS } as const satisfies ErrorCatalogue;
export type PurchaseApiErrorCode = keyof typeof CATALOGUE;

export class ErrorDetailSchema {
  @ApiProperty({ enum: Object.keys(CATALOGUE), description: 'Stable error code' })
  code: string;
  @ApiPropertyOptional({ description: 'DAILY_CAP_EXCEEDED only: remaining allowance today in ZAR cents' })
  remaining_minor?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1000, description: 'BUDGET_INSUFFICIENT only: the smallest charge the product accepts, in ZAR cents' })
  minimum_charge_minor?: number;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: 'VALIDATION_FAILED: messages per field path',
    example: { 'credit_party_identifier.mobile_number': ['is required by this product'] },
  })
  fields?: Record<string, string[]>;
  @ApiPropertyOptional({ description: '5xx answers only: quote it to support' })
  request_id?: string;
}

export class ErrorEnvelopeSchema {
  @ApiProperty({ enum: [false] })
  success: boolean;
  @ApiProperty({ description: 'Equals the error code' })
  message: string;
  @ApiProperty({ type: ErrorDetailSchema })
  error: ErrorDetailSchema;
}

/**
 * The purchase contract's envelope: `{success: true, message: "OK", data}` and
 * `{success: false, message: CODE, error: {code, ...details, fields?, request_id?}}`.
 */
export const PURCHASE_ENVELOPE: ApiEnvelopeFormat<PurchaseApiErrorCode> = {
  catalogue: CATALOGUE,
  rateLimitCode: 'API_RATE_LIMITED',
  success: (data) => ({ success: true, message: 'OK', data }),
  error: ({ code, details, fieldErrors, requestId }) => {
    const fields = Object.keys(fieldErrors).length > 0 ? { fields: fieldErrors } : {};
    const correlation = requestId === undefined ? {} : { request_id: requestId };
    return { success: false, message: code, error: { code, ...details, ...fields, ...correlation } };
  },
  openApi: {
    errorModel: ErrorEnvelopeSchema,
    successMembers: { success: { type: 'boolean', enum: [true] }, message: { type: 'string', enum: ['OK'] } },
    errorCodesSchema: (codes) => ({
      type: 'object',
      properties: {
        message: { type: 'string', enum: codes },
        // The detail's own members (fields, request_id, remaining_minor ...) stay declared: an
        // `error` object redeclared with `code` alone would make strict validators (and Redocly's
        // example check) refuse them as unevaluated properties.
        error: { allOf: [{ $ref: '#/components/schemas/ErrorDetail' }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] },
      },
    }),
    exampleFieldErrors: { reference: ['must be 1 to 64 characters'] },
    describeErrors: (entries) => entries.map(([code]) => `\`${code}\``).join(', '),
    errorHeaders: (status) => (status === 429 || status === 503 ? { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } : undefined),
  },
};
