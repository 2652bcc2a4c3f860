import { startHttpService } from '#bootstrap';
import { PURCHASE_HTTP_OPTIONS } from './http-options.js';
import { PURCHASE_GATEWAY_CONFIG, PurchaseGatewayModule } from './purchase-gateway.module.js';

await startHttpService({
  name: 'purchase-gateway',
  defaultPort: 3000,
  config: PURCHASE_GATEWAY_CONFIG,
  module: (config) => PurchaseGatewayModule.register(config),
  http: PURCHASE_HTTP_OPTIONS,
});
