import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { COMMON_ERRORS } from '#common';
import { PURCHASE_ERRORS } from '#purchase';

const CATALOGUE = { ...COMMON_ERRORS, ...PURCHASE_ERRORS };
export type PurchaseErrorCode = keyof typeof CATALOGUE & string;

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

/** `{success: true, message: "OK", data: <schema>}`. */
export function ApiEnvelope(status: number, schema: Type<unknown>, description?: string, data?: unknown) {
  return applyDecorators(
    ApiExtraModels(schema),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          message: { type: 'string', enum: ['OK'] },
          data: { $ref: getSchemaPath(schema) },
        },
      },
      // An answer the sandbox gives, where one built from the schema would mislead.
      ...(data === undefined ? {} : { example: { success: true, message: 'OK', data } }),
    }),
  );
}

/** Error answers grouped by HTTP status, each listing the codes this operation may return. */
export function ApiPurchaseErrors(...listed: PurchaseErrorCode[]) {
  // A rate-limited operation is also refused while the limiter cannot count (Redis down): 503.
  const codes: PurchaseErrorCode[] = listed.includes(RATE_LIMITED) && !listed.includes('SERVICE_UNAVAILABLE') ? [...listed, 'SERVICE_UNAVAILABLE'] : listed;
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(CATALOGUE[code].status, [...(byStatus.get(CATALOGUE[code].status) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeSchema),
    ...[...byStatus].map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: statusCodes.map((code) => `\`${code}\``).join(', '),
        schema: { $ref: getSchemaPath(ErrorEnvelopeSchema) },
        headers: status === 429 || status === 503 ? { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } : undefined,
      }),
    ),
  );
}

/** Every authenticated operation can be rate limited. */
export const RATE_LIMITED = 'API_RATE_LIMITED' as const;
