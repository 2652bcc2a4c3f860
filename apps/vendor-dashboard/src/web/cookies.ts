import { SessionCookies } from '#web';
import type { GatewayEnv } from '#config';

/** The dashboard's cookies: `__Host-dash_session` and `__Host-dash_pre` (docs/DASHBOARD.md). */
export class DashboardCookies extends SessionCookies {
  constructor(config: Pick<GatewayEnv, 'APP_ENV'>) {
    super(config, 'dash');
  }
}
