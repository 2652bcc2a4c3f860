import { HttpException } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '#common';

/** No live session: GET pages redirect to sign-in, other requests answer 401. */
export class SignInRequired extends Error {}

/** A role or CSRF refusal (403), with the reason shown to the person. */
export class PageForbidden extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export type PageErrorAnswer =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; status: number; title: string; message: string }
  | { kind: 'unexpected' };

export interface PageErrorWording {
  /** What a 404 from a domain error says (the dashboard adds "or it belongs to another account"). */
  notFound: string;
  /** Show a validation failure's field messages instead of its generic message. */
  fieldMessages?: boolean;
}

/**
 * How a signed-in web app answers a failure, the same in the dashboard and the back-office:
 * probe endpoints keep their JSON, no session → sign-in (401 for non-GET), an unknown id → 404,
 * a role or CSRF refusal → 403, a validation failure → 400, another domain refusal → 409;
 * anything else is unexpected (500, logged by the caller).
 */
export function answerForPageError(exception: unknown, request: Request, wording: PageErrorWording): PageErrorAnswer {
  if (/^\/(health|metrics)/.test(request.path) && exception instanceof HttpException) return { kind: 'json', status: exception.getStatus(), body: exception.getResponse() };
  if (exception instanceof SignInRequired) {
    if (request.method === 'GET' || request.method === 'HEAD') return { kind: 'redirect', location: `/sign-in?next=${encodeURIComponent(request.originalUrl)}` };
    return { kind: 'page', status: 401, title: 'Sign in required', message: 'Your session has ended. Sign in again.' };
  }
  if (exception instanceof PageForbidden) return { kind: 'page', status: 403, title: 'Not allowed', message: exception.reason };
  if (exception instanceof DomainError) {
    const status = exception.code === 'NOT_FOUND' ? 404 : exception.code === 'VALIDATION_FAILED' ? 400 : exception.code === 'FORBIDDEN' ? 403 : 409;
    const fields = Object.entries(exception.fieldErrors).flatMap(([field, messages]) => messages.map((message) => (field === '_' ? message : `${field}: ${message}`)));
    const message = status === 404 ? wording.notFound : wording.fieldMessages && fields.length > 0 ? fields.join(' ') : exception.message;
    return { kind: 'page', status, title: status === 404 ? 'Not found' : 'Request refused', message };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return { kind: 'page', status, title: status === 404 ? 'Not found' : 'Request refused', message: status === 404 ? 'There is nothing here.' : exception.message };
  }
  return { kind: 'unexpected' };
}
