import type { Type } from '@nestjs/common';
import { apiEnvelopeDecorator, apiErrorsDecorator } from '#common';
import { PURCHASE_ENVELOPE, type PurchaseApiErrorCode } from '../http/purchase-envelope.js';

export { ErrorDetailSchema, ErrorEnvelopeSchema } from '../http/purchase-envelope.js';
/** Every code the purchase API answers with (the shared codes included). */
export type PurchaseErrorCode = PurchaseApiErrorCode;

const envelope = apiEnvelopeDecorator(PURCHASE_ENVELOPE);

/** `{success: true, message: "OK", data: <schema>}`; `data`: an answer the sandbox gives, where one built from the schema would mislead. */
export function ApiEnvelope(status: number, schema: Type<unknown>, description?: string, data?: unknown) {
  return envelope(status, schema, { description, data });
}

/** The purchase envelope around an array of the schema. */
export const ApiEnvelopeList = (schema: Type<unknown>, status = 200) => envelope(status, schema, { isArray: true });

/** Error answers grouped by HTTP status, each listing the codes this operation may return. */
export const ApiPurchaseErrors = apiErrorsDecorator(PURCHASE_ENVELOPE);

/** Every authenticated operation can be rate limited. */
export const RATE_LIMITED = 'API_RATE_LIMITED' as const;
