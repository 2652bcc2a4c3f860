import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { configureHttpApp, type HttpAppOptions } from '#common';
import { loadConfig, type GatewayEnv } from '#config';
import { PAYOUT_HTTP_OPTIONS } from '../../apps/payout-gateway/src/http-options.js';
import { PayoutGatewayModule } from '../../apps/payout-gateway/src/payout-gateway.module.js';
import { PURCHASE_HTTP_OPTIONS } from '../../apps/purchase-gateway/src/http-options.js';
import { PurchaseGatewayModule } from '../../apps/purchase-gateway/src/purchase-gateway.module.js';

export type SdkApi = 'purchase' | 'payout';

const GATEWAYS: Record<SdkApi, { module: (config: GatewayEnv) => DynamicModule; http: HttpAppOptions }> = {
  purchase: { module: (config) => PurchaseGatewayModule.register(config), http: PURCHASE_HTTP_OPTIONS },
  payout: { module: (config) => PayoutGatewayModule.register(config), http: PAYOUT_HTTP_OPTIONS },
};

/**
 * The gateway's `/docs-json` document, built in process exactly as the gateway builds it
 * (configureHttpApp), without a server, database or Redis: Nest's preview mode wires the module
 * graph and routes but instantiates no provider, so nothing connects anywhere.
 */
export async function buildOpenApiDocument(api: SdkApi): Promise<OpenAPIObject> {
  const gateway = GATEWAYS[api];
  // Development defaults only: the document never depends on configuration values.
  const config = loadConfig({ APP_ENV: 'development' });
  const app = await NestFactory.create(gateway.module(config), { preview: true, logger: false, abortOnError: false });
  try {
    const document = configureHttpApp(app, gateway.http);
    if (!document) throw new Error(`the ${api} gateway's HTTP options describe no OpenAPI document`);
    // A plain JSON copy: what /docs-json serves, with no class instances or undefined values.
    return JSON.parse(JSON.stringify(document)) as OpenAPIObject;
  } finally {
    await app.close();
  }
}
