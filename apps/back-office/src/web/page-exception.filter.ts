import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '#common';
import { StaffActionRefused, StaffPermissionDenied } from '#staff';
import { html } from '#web';
import { PageForbidden, SignInRequired } from './access.js';
import { layout } from './layout.js';
import type { StaffRequest } from './staff-request.js';

/**
 * Every failure becomes a page with the right status: no session → the sign-in page (401 for
 * non-GET), an unknown id → 404, a role or CSRF refusal → 403, a refused decision (the proposer
 * approving, an item already moved) → 409 with the reason. Probe endpoints keep their JSON bodies.
 */
@Catch()
export class StaffPageExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('BackOffice');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<StaffRequest>();
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
      return this.page(response, request, 401, 'Sign in required', 'Your session has ended. Sign in again.');
    }
    if (exception instanceof PageForbidden || exception instanceof StaffPermissionDenied) {
      return this.page(response, request, 403, 'Not allowed', exception instanceof PageForbidden ? exception.reason : exception.message);
    }
    if (exception instanceof StaffActionRefused) return this.page(response, request, 409, 'Refused', exception.message);
    if (exception instanceof DomainError) {
      const status = exception.code === 'NOT_FOUND' ? 404 : exception.code === 'VALIDATION_FAILED' ? 400 : exception.code === 'FORBIDDEN' ? 403 : 409;
      const fields = Object.entries(exception.fieldErrors).flatMap(([field, messages]) => messages.map((message) => (field === '_' ? message : `${field}: ${message}`)));
      return this.page(response, request, status, status === 404 ? 'Not found' : 'Request refused', status === 404 ? 'There is nothing here.' : fields.join(' ') || exception.message);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      return this.page(response, request, status, status === 404 ? 'Not found' : 'Request refused', status === 404 ? 'There is nothing here.' : exception.message);
    }
    this.logger.error({ err: exception }, 'Back-office page failed');
    this.page(response, request, 500, 'Something went wrong', 'The page could not be shown. Try again; if it keeps failing, quote the request id.');
  }

  private page(response: Response, request: StaffRequest, status: number, title: string, message: string): void {
    response
      .status(status)
      .type('html')
      .send(layout({ title, session: request.staff, body: html`<p>${message}</p><p>Request id: <code>${String(response.getHeader('X-Request-Id') ?? '')}</code></p>` }).value);
  }
}
