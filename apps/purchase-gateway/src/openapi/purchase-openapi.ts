import type { Type } from '@nestjs/common';
import { apiEnvelopeDecorator, apiErrorsDecorator } from '#common';
import { PURCHASE_ENVELOPE } from '../http/purchase-envelope.js';

const envelope = apiEnvelopeDecorator(PURCHASE_ENVELOPE);

/** `{success: true, message: "OK", data: <schema>}`; `data`: an answer the sandbox gives, where one built from the schema would mislead. */
export function ApiEnvelope(status: number, schema: Type<unknown>, description?: string, data?: unknown) {
  return envelope(status, schema, { description, data });
}

/** Error answers grouped by HTTP status, each listing the codes this operation may return. */
export const ApiPurchaseErrors = apiErrorsDecorator(PURCHASE_ENVELOPE);

/** Every authenticated operation can be rate limited. */
export const RATE_LIMITED = 'API_RATE_LIMITED' as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A fulfilment is a PIN or an eSIM, never both: a union on `kind`, so a generated client narrows
 * `pin` and `esim` by it (the decorators can only say "each may be null").
 */
export function refinePurchaseSchemas(schemas: Record<string, Json>): void {
  const fulfilment = schemas.Fulfilment;
  const variant = (kind: 'pin' | 'esim', delivery: string) => ({
    type: 'object',
    description: `A ${kind === 'pin' ? 'PIN (voucher code and serial)' : 'eSIM (ICCID, SM-DP+ address, activation code and QR payload)'} fulfilment`,
    required: fulfilment.required,
    properties: {
      ...fulfilment.properties,
      kind: { type: 'string', enum: [kind] },
      pin: kind === 'pin' ? schemaRef(delivery) : { type: 'null' },
      esim: kind === 'esim' ? schemaRef(delivery) : { type: 'null' },
    },
  });
  schemas.PinFulfilment = variant('pin', 'PinDelivery');
  schemas.EsimFulfilment = variant('esim', 'EsimDelivery');
  schemas.Fulfilment = {
    description: 'The delivery data of a completed purchase: `kind` says which member carries it, the other is null',
    oneOf: [schemaRef('PinFulfilment'), schemaRef('EsimFulfilment')],
    discriminator: { propertyName: 'kind', mapping: { pin: '#/components/schemas/PinFulfilment', esim: '#/components/schemas/EsimFulfilment' } },
  };
}
