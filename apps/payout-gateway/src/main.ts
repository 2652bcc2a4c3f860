import { startHttpService } from '#bootstrap';
import { PAYOUT_HTTP_OPTIONS } from './http-options.js';
import { PayoutGatewayModule } from './payout-gateway.module.js';

await startHttpService({
  name: 'payout-gateway',
  defaultPort: 3001,
  module: PayoutGatewayModule,
  http: PAYOUT_HTTP_OPTIONS,
});
