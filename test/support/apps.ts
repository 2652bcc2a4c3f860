import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import supertest from 'supertest';
import { configureHttpApp, operationalServer, type HttpAppOptions } from '#common';
import type { GatewayEnv } from '#config';
import { PURCHASE_HTTP_OPTIONS } from '../../apps/purchase-gateway/src/http-options.js';
import { PurchaseGatewayModule } from '../../apps/purchase-gateway/src/purchase-gateway.module.js';
import { PAYOUT_HTTP_OPTIONS } from '../../apps/payout-gateway/src/http-options.js';
import { PayoutGatewayModule } from '../../apps/payout-gateway/src/payout-gateway.module.js';
import { DASHBOARD_HTTP_OPTIONS } from '../../apps/vendor-dashboard/src/http-options.js';
import { VendorDashboardModule } from '../../apps/vendor-dashboard/src/vendor-dashboard.module.js';
import { BACK_OFFICE_HTTP_OPTIONS } from '../../apps/back-office/src/http-options.js';
import { BackOfficeModule } from '../../apps/back-office/src/back-office.module.js';
import { testConfig } from './test-config.js';

export interface RunningApp {
  app: INestApplication;
  http: () => ReturnType<typeof supertest>;
  /** Base URL when started with listen: true (for clients that need a real socket, e.g. callbacks). */
  url?: string;
  /** /health/* and /metrics: the operational port's server for the apps that keep them off their own port, else the app's. */
  operationalHttp: () => ReturnType<typeof supertest>;
  close: () => Promise<void>;
}

export interface StartOptions {
  config?: Record<string, string>;
  /** Extra controllers or modules, e.g. a probe controller in the auth tests. */
  extraImports?: DynamicModule['imports'];
  extraControllers?: Type[];
  listen?: boolean;
  /** Providers replaced in the app's container, e.g. a fixed AdmissionClock. */
  overrides?: Array<{ provide: unknown; useValue: unknown }>;
}

async function start(root: (config: GatewayEnv) => DynamicModule, http: HttpAppOptions, options: StartOptions): Promise<RunningApp> {
  const config = testConfig(options.config);
  const rootModule = root(config);
  const builder = Test.createTestingModule({
    imports: [rootModule, ...(options.extraImports ?? [])],
    controllers: options.extraControllers ?? [],
  });
  for (const override of options.overrides ?? []) builder.overrideProvider(override.provide).useValue(override.useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  configureHttpApp(app, { ...http, trustedProxyHops: config.TRUSTED_PROXY_HOPS });
  let url: string | undefined;
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
    url = url.replace('[::1]', '127.0.0.1');
  } else {
    await app.init();
  }
  const server = app.getHttpServer();
  const operational = http.operationalPortOnly ? operationalServer(app) : server;
  return { app, url, http: () => supertest(server), operationalHttp: () => supertest(operational), close: () => app.close() };
}

export const startPurchaseGateway = (options: StartOptions = {}) => start((config) => PurchaseGatewayModule.register(config), PURCHASE_HTTP_OPTIONS, options);
export const startPayoutGateway = (options: StartOptions = {}) => start((config) => PayoutGatewayModule.register(config), PAYOUT_HTTP_OPTIONS, options);
export const startVendorDashboard = (options: StartOptions = {}) => start((config) => VendorDashboardModule.register(config), DASHBOARD_HTTP_OPTIONS, options);
export const startBackOffice = (options: StartOptions = {}) => start((config) => BackOfficeModule.register(config), BACK_OFFICE_HTTP_OPTIONS, options);
