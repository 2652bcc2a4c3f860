import { startHttpService } from '#bootstrap';
import { DASHBOARD_HTTP_OPTIONS } from './http-options.js';
import { VENDOR_DASHBOARD_CONFIG, VendorDashboardModule } from './vendor-dashboard.module.js';

await startHttpService({
  name: 'vendor-dashboard',
  defaultPort: 3200,
  config: VENDOR_DASHBOARD_CONFIG,
  module: (config) => VendorDashboardModule.register(config),
  http: DASHBOARD_HTTP_OPTIONS,
});
