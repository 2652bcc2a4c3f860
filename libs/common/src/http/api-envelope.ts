import type { Type } from '@nestjs/common';
import type { CommonErrorCode, ErrorCatalogue, ErrorCatalogueEntry } from '../errors/error-catalogue.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** An error as the exception filter hands it to the envelope. */
export interface ApiErrorAnswer<C extends string> {
  code: C;
  /** The catalogue's fixed, user-safe message of the code. */
  message: string;
  /** Extra members the code carries (e.g. remaining_minor). */
  details: Record<string, unknown>;
  /** Messages per field path. */
  fieldErrors: Record<string, string[]>;
  /** Only on 5xx answers: support finds the log line by it. */
  requestId?: string;
}

/**
 * How one service answers: each gateway app defines its own (the contracts fix the bodies), and
 * the shared exception filter, envelope interceptor, OpenAPI decorators and OpenAPI pass build
 * every body and every description through it, so no shared code knows a service by name.
 */
export interface ApiEnvelopeFormat<C extends string = string> {
  /** Every code the service answers with (COMMON_ERRORS included): its status and message. */
  readonly catalogue: ErrorCatalogue<C | CommonErrorCode>;
  /** The service's rate-limit code: every authenticated operation may answer it. */
  readonly rateLimitCode: C;
  /** The body of a successful answer around the controller's result. */
  success(data: unknown): unknown;
  /** The body of an error answer. */
  error(answer: ApiErrorAnswer<C | CommonErrorCode>): unknown;
  readonly openApi: ApiEnvelopeOpenApi<C | CommonErrorCode>;
}

/** What the OpenAPI document says of the envelope. */
export interface ApiEnvelopeOpenApi<C extends string> {
  /** The class describing the error envelope (its schema becomes `ErrorEnvelope`). */
  errorModel: Type<unknown>;
  /** The success envelope's members next to `data`, in order (all required). */
  successMembers: Record<string, Json>;
  /** The error envelope narrowed to the codes one response can carry. */
  errorCodesSchema(codes: string[]): Json;
  /** The field errors of the VALIDATION_FAILED example. */
  exampleFieldErrors: Record<string, string[]>;
  /** The description of one status's error response, from the codes it carries. */
  describeErrors(codes: Array<[C, ErrorCatalogueEntry]>): string;
  /** Headers an error status declares itself (they take precedence over the gateway-wide ones). */
  errorHeaders?(status: number): Record<string, Json> | undefined;
}

export const API_ENVELOPE = Symbol('API_ENVELOPE');
