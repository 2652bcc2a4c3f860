import { startHttpService } from '#bootstrap';
import { PURCHASE_HTTP_OPTIONS } from './http-options.js';
import { PurchaseGatewayModule } from './purchase-gateway.module.js';

await startHttpService({
  name: 'purchase-gateway',
  defaultPort: 3000,
  module: PurchaseGatewayModule,
  http: PURCHASE_HTTP_OPTIONS,
});
