import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '#common';
import { html, type SafeHtml } from './html.js';

/** No live session: GET pages redirect to sign-in, other requests answer 401. */
export class SignInRequired extends Error {}

/** A role or CSRF refusal (403), with the reason shown to the person. */
export class PageForbidden extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A decision the rules refuse (409), with the reason shown to the person. */
export class PageRefused extends Error {}

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
 * a role or CSRF refusal → 403, a validation failure or a refused decision → 400 or 409;
 * anything else is unexpected (500, logged by the caller).
 */
export function answerForPageError(exception: unknown, request: Request, wording: PageErrorWording): PageErrorAnswer {
  if (/^\/(health|metrics)/.test(request.path) && exception instanceof HttpException) return { kind: 'json', status: exception.getStatus(), body: exception.getResponse() };
  if (exception instanceof SignInRequired) {
    if (request.method === 'GET' || request.method === 'HEAD') return { kind: 'redirect', location: `/sign-in?next=${encodeURIComponent(request.originalUrl)}` };
    return { kind: 'page', status: 401, title: 'Sign in required', message: 'Your session has ended. Sign in again.' };
  }
  if (exception instanceof PageForbidden) return { kind: 'page', status: 403, title: 'Not allowed', message: exception.reason };
  if (exception instanceof PageRefused) return { kind: 'page', status: 409, title: 'Refused', message: exception.message };
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

export interface PageErrorPages extends PageErrorWording {
  /** Logger context of the app; its unexpected failures are logged as "<app> page failed". */
  app: string;
  /** What the 500 page tells the person. */
  unexpected: string;
  /** The app's layout around a message, for whoever is signed in on the request (if anyone). */
  page(request: Request, title: string, body: SafeHtml): SafeHtml;
}

/**
 * The exception filter of both signed-in apps: every failure becomes a page with the right
 * status (answerForPageError) and the request id; probe endpoints keep their JSON bodies, and
 * anything unexpected is logged and answered 500.
 */
@Catch()
export class PageExceptionFilter implements ExceptionFilter {
  private readonly logger: Logger;

  constructor(private readonly pages: PageErrorPages) {
    this.logger = new Logger(pages.app);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    response.setHeader('Cache-Control', 'no-store');

    const answer = answerForPageError(exception, request, this.pages);
    if (answer.kind === 'json') return void response.status(answer.status).json(answer.body);
    if (answer.kind === 'redirect') return response.redirect(303, answer.location);
    if (answer.kind === 'page') return this.send(response, request, answer.status, answer.title, answer.message);
    this.logger.error({ err: exception }, `${this.pages.app} page failed`);
    this.send(response, request, 500, 'Something went wrong', this.pages.unexpected);
  }

  private send(response: Response, request: Request, status: number, title: string, message: string): void {
    const body = html`<p>${message}</p><p>Request id: <code>${String(response.getHeader('X-Request-Id') ?? '')}</code></p>`;
    response.status(status).type('html').send(this.pages.page(request, title, body).value);
  }
}
