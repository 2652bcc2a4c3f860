import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { StaffActionRefused, StaffPermissionDenied } from '#staff';
import { answerForPageError, html } from '#web';
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

    if (exception instanceof StaffPermissionDenied) return this.page(response, request, 403, 'Not allowed', exception.message);
    if (exception instanceof StaffActionRefused) return this.page(response, request, 409, 'Refused', exception.message);
    const answer = answerForPageError(exception, request, { notFound: 'There is nothing here.', fieldMessages: true });
    if (answer.kind === 'json') return void response.status(answer.status).json(answer.body);
    if (answer.kind === 'redirect') return response.redirect(303, answer.location);
    if (answer.kind === 'page') return this.page(response, request, answer.status, answer.title, answer.message);
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
