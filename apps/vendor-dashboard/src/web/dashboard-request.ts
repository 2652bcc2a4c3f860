import type { Request } from 'express';
import type { DashboardSession } from '#dashboard';

/** An Express request after the session guard: `dashboard` is set on every non-public page. */
export interface DashboardRequest extends Request {
  dashboard?: DashboardSession;
}
