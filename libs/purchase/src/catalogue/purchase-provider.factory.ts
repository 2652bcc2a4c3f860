import type { Provider } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { PurchaseProviderClient } from '#providers';

/**
 * The client's paths start at `/dvs/v1`, so its base URL is the provider's origin. A base URL
 * configured with the `/dvs/v1` suffix (the shape the API documents) is accepted too.
 */
export const purchaseProviderClientProvider: Provider = {
  provide: PurchaseProviderClient,
  inject: [GatewayEnv],
  useFactory: (config: GatewayEnv) =>
    new PurchaseProviderClient({
      baseUrl: config.PURCHASE_PROVIDER_BASE_URL?.replace(/\/dvs\/v1\/?$/, ''),
      apiKey: config.PURCHASE_PROVIDER_API_KEY,
      timeoutMs: config.PURCHASE_PROVIDER_TIMEOUT_MS,
      production: config.isProduction,
    }),
};
