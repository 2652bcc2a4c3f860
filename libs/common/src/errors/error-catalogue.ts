import { HttpStatus } from '@nestjs/common';

export interface ErrorCatalogueEntry {
  status: HttpStatus;
  /** Fixed, user-safe message (the payout contract requires one message per code). */
  message: string;
}

export type ErrorCatalogue = Record<string, ErrorCatalogueEntry>;

/** Codes both services share. */
export const COMMON_ERRORS: ErrorCatalogue = {
  UNAUTHENTICATED: { status: HttpStatus.UNAUTHORIZED, message: 'Authentication is required.' },
  FORBIDDEN: { status: HttpStatus.FORBIDDEN, message: 'This token or vendor does not have access to this operation.' },
  NOT_FOUND: { status: HttpStatus.NOT_FOUND, message: 'The requested resource was not found.' },
  VALIDATION_FAILED: { status: HttpStatus.UNPROCESSABLE_ENTITY, message: 'The request is invalid. Correct the reported fields.' },
  PAYLOAD_TOO_LARGE: { status: HttpStatus.PAYLOAD_TOO_LARGE, message: 'The request body is too large.' },
  METHOD_NOT_ALLOWED: { status: HttpStatus.METHOD_NOT_ALLOWED, message: 'This method is not allowed on this path.' },
  UNSUPPORTED_MEDIA_TYPE: { status: HttpStatus.UNSUPPORTED_MEDIA_TYPE, message: 'Send the body as application/json.' },
  SERVICE_UNAVAILABLE: { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'The service is temporarily unavailable. Retry later.' },
  INTERNAL_ERROR: { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'An unexpected error occurred.' },
};
