import { startHttpService } from '#bootstrap';
import { BackOfficeModule } from './back-office.module.js';
import { BACK_OFFICE_HTTP_OPTIONS } from './http-options.js';

await startHttpService({
  name: 'back-office',
  defaultPort: 3300,
  module: BackOfficeModule,
  defaultOperationalPort: 3301,
  http: BACK_OFFICE_HTTP_OPTIONS,
});
