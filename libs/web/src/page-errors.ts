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

export interface PageErrorPages {
  /** Logger context of the app; its unexpected failures are logged as "<app> page failed". */
  app: string;
  /** What a 404 from a domain error says (the dashboard adds "or it belongs to another account"). */
  notFound: string;
  /** Show a validation failure's field messages instead of its generic message. */
  fieldMessages?: boolean;
  /** What the 500 page tells the person. */
  unexpected: string;
  /** The app's layout around a message, for whoever is signed in on the request (if anyone). */
  page(request: Request, title: string, body: SafeHtml): SafeHtml;
}

/**
 * The exception filter of both signed-in apps: every failure becomes a page with the right
 * status and the request id. Probe endpoints keep their JSON, no session → sign-in (401 for
 * non-GET), an unknown id → 404, a role or CSRF refusal → 403, a validation failure or a refused
 * decision → 400 or 409; anything else is unexpected (500, logged).
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
    const send = (status: number, title: string, message: string): void => {
      const body = html`<p>${message}</p><p>Request id: <code>${String(response.getHeader('X-Request-Id') ?? '')}</code></p>`;
      response.status(status).type('html').send(this.pages.page(request, title, body).value);
    };

    if (/^\/(health|metrics)/.test(request.path) && exception instanceof HttpException) return void response.status(exception.getStatus()).json(exception.getResponse());
    if (exception instanceof SignInRequired) {
      if (request.method === 'GET' || request.method === 'HEAD') return response.redirect(303, `/sign-in?next=${encodeURIComponent(request.originalUrl)}`);
      return send(401, 'Sign in required', 'Your session has ended. Sign in again.');
    }
    if (exception instanceof PageForbidden) return send(403, 'Not allowed', exception.reason);
    if (exception instanceof PageRefused) return send(409, 'Refused', exception.message);
    if (exception instanceof DomainError) {
      const status = exception.code === 'NOT_FOUND' ? 404 : exception.code === 'VALIDATION_FAILED' ? 400 : exception.code === 'FORBIDDEN' ? 403 : 409;
      const fields = Object.entries(exception.fieldErrors).flatMap(([field, messages]) => messages.map((message) => (field === '_' ? message : `${field}: ${message}`)));
      const message = status === 404 ? this.pages.notFound : this.pages.fieldMessages && fields.length > 0 ? fields.join(' ') : exception.message;
      return send(status, status === 404 ? 'Not found' : 'Request refused', message);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      return send(status, status === 404 ? 'Not found' : 'Request refused', status === 404 ? 'There is nothing here.' : exception.message);
    }
    this.logger.error({ err: exception }, `${this.pages.app} page failed`);
    send(500, 'Something went wrong', this.pages.unexpected);
  }
}
