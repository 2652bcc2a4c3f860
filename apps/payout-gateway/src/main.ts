import { startHttpService } from '#bootstrap';
import { PAYOUT_HTTP_OPTIONS } from './http-options.js';
import { PAYOUT_GATEWAY_CONFIG, PayoutGatewayModule } from './payout-gateway.module.js';

await startHttpService({
  name: 'payout-gateway',
  defaultPort: 3001,
  config: PAYOUT_GATEWAY_CONFIG,
  module: (config) => PayoutGatewayModule.register(config),
  http: PAYOUT_HTTP_OPTIONS,
});
