import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '#common';
import type { DashboardRequest } from './dashboard-request.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { PageForbidden, SignInRequired } from './access.js';

/**
 * Every failure becomes a page with the right status: no session → the sign-in page (401 for
 * non-GET), another vendor's or an unknown id → 404, a role or CSRF refusal → 403. Probe
 * endpoints keep their JSON bodies.
 */
@Catch()
export class PageExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<DashboardRequest>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    response.setHeader('Cache-Control', 'no-store');

    if (/^\/(health|metrics)/.test(request.path) && exception instanceof HttpException) {
      response.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    if (exception instanceof SignInRequired) {
      if (request.method === 'GET' || request.method === 'HEAD') {
        response.redirect(303, `/sign-in?next=${encodeURIComponent(request.originalUrl)}`);
        return;
      }
      this.page(response, request, 401, 'Sign in required', 'Your session has ended. Sign in again.');
      return;
    }
    if (exception instanceof PageForbidden) {
      this.page(response, request, 403, 'Not allowed', exception.reason);
      return;
    }
    if (exception instanceof DomainError) {
      const status = exception.code === 'NOT_FOUND' ? 404 : exception.code === 'VALIDATION_FAILED' ? 400 : exception.code === 'FORBIDDEN' ? 403 : 409;
      const detail = status === 404 ? 'There is nothing here, or it belongs to another account.' : exception.message;
      this.page(response, request, status, status === 404 ? 'Not found' : 'Request refused', detail);
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      this.page(response, request, status, status === 404 ? 'Not found' : 'Request refused', status === 404 ? 'There is nothing here.' : exception.message);
      return;
    }
    this.logger.error({ err: exception }, 'Dashboard page failed');
    this.page(response, request, 500, 'Something went wrong', 'The page could not be shown. Try again; if it keeps failing, quote the request id to support.');
  }

  private page(response: Response, request: DashboardRequest, status: number, title: string, message: string): void {
    response
      .status(status)
      .type('html')
      .send(layout({ title, session: request.dashboard, body: html`<p>${message}</p><p>Request id: <code>${String(response.getHeader('X-Request-Id') ?? '')}</code></p>` }).value);
  }
}
