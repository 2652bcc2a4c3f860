import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { answerForPageError } from '#web';
import type { DashboardRequest } from './dashboard-request.js';
import { html } from './html.js';
import { layout } from './layout.js';

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

    const answer = answerForPageError(exception, request, { notFound: 'There is nothing here, or it belongs to another account.' });
    if (answer.kind === 'json') return void response.status(answer.status).json(answer.body);
    if (answer.kind === 'redirect') return response.redirect(303, answer.location);
    if (answer.kind === 'page') return this.page(response, request, answer.status, answer.title, answer.message);
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
