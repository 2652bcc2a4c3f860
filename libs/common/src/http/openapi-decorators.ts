import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { CommonErrorCode, ErrorCatalogueEntry } from '../errors/error-catalogue.js';
import type { ApiEnvelopeFormat } from './api-envelope.js';

export interface ApiEnvelopeOptions {
  /** `data` is an array of the schema. */
  isArray?: boolean;
  description?: string;
  /** An answer the sandbox gives, where one built from the schema would mislead. */
  data?: unknown;
}

/**
 * A gateway's success-response decorator: `@ApiEnvelope(200, PayoutSchema)` documents the
 * envelope around the schema (`null`: `data` is null).
 */
export function apiEnvelopeDecorator(envelope: ApiEnvelopeFormat<string>) {
  const members = envelope.openApi.successMembers;
  return (status: number, schema: Type<unknown> | null, options: ApiEnvelopeOptions = {}) => {
    const data = schema === null ? { type: 'object', nullable: true, example: null } : options.isArray ? { type: 'array', items: { $ref: getSchemaPath(schema) } } : { $ref: getSchemaPath(schema) };
    return applyDecorators(
      ...(schema ? [ApiExtraModels(schema)] : []),
      ApiResponse({
        status,
        description: options.description,
        schema: { type: 'object', required: [...Object.keys(members), 'data'], properties: { ...members, data } },
        ...(options.data === undefined ? {} : { example: envelope.success(options.data) }),
      }),
    );
  };
}

/**
 * A gateway's error-response decorator: `@ApiErrors('NOT_FOUND', 'VALIDATION_FAILED')` declares
 * one response per HTTP status (the catalogue fixes each code's status), each naming its codes.
 * Only codes of the gateway's catalogue compile. Every operation carrying it is authenticated,
 * so the rate-limit code is implied, and SERVICE_UNAVAILABLE with it: the limiter refuses
 * requests while it cannot count them.
 */
export function apiErrorsDecorator<C extends string>(envelope: ApiEnvelopeFormat<C>) {
  const { catalogue, openApi } = envelope;
  return (...listed: Array<C | CommonErrorCode>) => {
    const codes = [...new Set([...listed, envelope.rateLimitCode, 'SERVICE_UNAVAILABLE' as const])];
    const byStatus = new Map<number, Array<[C | CommonErrorCode, ErrorCatalogueEntry]>>();
    for (const code of codes) byStatus.set(catalogue[code].status, [...(byStatus.get(catalogue[code].status) ?? []), [code, catalogue[code]]]);
    return applyDecorators(
      ApiExtraModels(openApi.errorModel),
      ...[...byStatus].map(([status, entries]) =>
        ApiResponse({
          status,
          description: openApi.describeErrors(entries),
          schema: { $ref: getSchemaPath(openApi.errorModel) },
          // Only an envelope that declares error headers has the member at all: its place decides
          // where the finished document lists the headers.
          ...(openApi.errorHeaders ? { headers: openApi.errorHeaders(status) } : {}),
        }),
      ),
    );
  };
}
