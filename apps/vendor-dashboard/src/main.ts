import { startHttpService } from '#bootstrap';
import { DASHBOARD_HTTP_OPTIONS } from './http-options.js';
import { VendorDashboardModule } from './vendor-dashboard.module.js';

await startHttpService({
  name: 'vendor-dashboard',
  defaultPort: 3200,
  module: VendorDashboardModule,
  defaultOperationalPort: 3201,
  http: DASHBOARD_HTTP_OPTIONS,
});
