import { startHttpService } from '#bootstrap';
import { BACK_OFFICE_CONFIG, BackOfficeModule } from './back-office.module.js';
import { BACK_OFFICE_HTTP_OPTIONS } from './http-options.js';

await startHttpService({
  name: 'back-office',
  defaultPort: 3300,
  config: BACK_OFFICE_CONFIG,
  module: (config) => BackOfficeModule.register(config),
  http: BACK_OFFICE_HTTP_OPTIONS,
});
