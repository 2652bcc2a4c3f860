import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import helmet from 'helmet';
import { jsonBodyShapeGuard, jsonOnlyWrites } from './body-shape.js';
import { finishOpenApiDocument, type OpenApiFinish } from './openapi-finish.js';
import { operationalPathsElsewhere } from './operational-port.js';

export interface HttpAppOptions {
  /** Prefix for vendor routes; health, metrics and docs stay at the root for probes and scrapers. */
  globalPrefix?: string;
  bodyLimit: string;
  /** Also parse HTML form posts (application/x-www-form-urlencoded): the vendor dashboard. */
  forms?: boolean;
  openApi?: { title: string; description: string; finish?: OpenApiFinish };
  /** X-Forwarded-For hops believed (TRUSTED_PROXY_HOPS); 0 or absent: the socket's address. */
  trustedProxyHops?: number;
  /**
   * Health and metrics only on the operational port (operational-port.ts), 404 on the app's own:
   * the dashboard and back-office, where every path of the app's port faces people's browsers.
   */
  operationalPortOnly?: boolean;
}

export const OPERATIONAL_PATHS = ['health/live', 'health/ready', 'metrics'];

/**
 * Express-level setup shared by main.ts and the e2e tests, so tests exercise exactly what
 * production serves. Guards, filters, pipes and interceptors come from the modules.
 */
export function configureHttpApp(app: INestApplication, options: HttpAppOptions): OpenAPIObject | undefined {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  express.set('trust proxy', options.trustedProxyHops ?? 0);
  // No ETag: every answer here is live money state that must not be served from a conditional
  // cache, and hashing each JSON body cost ~1 % of a gateway's CPU (docs/BENCHMARKS.md).
  express.set('etag', false);
  express.use(helmet({ contentSecurityPolicy: false }));
  if (options.operationalPortOnly) express.use(operationalPathsElsewhere());
  express.useBodyParser('json', { limit: options.bodyLimit, strict: true });
  if (options.forms) express.useBodyParser('urlencoded', { limit: options.bodyLimit, extended: false });
  // Depth and reserved keys are checked on the parsed JSON (V8's JSON.parse does not recurse on
  // the stack, and makes `__proto__` an own property) before validation, which does recurse.
  express.use(jsonBodyShapeGuard());
  if (options.globalPrefix) {
    const prefix = `/${options.globalPrefix}`;
    // Every vendor answer is live money state (balances, statuses, PINs): no client or proxy may
    // reuse it. Set before routing so errors (including 404 and 429) carry it too.
    express.use(prefix, (_request: unknown, response: { setHeader: (name: string, value: string) => void }, next: () => void) => {
      response.setHeader('Cache-Control', 'no-store');
      next();
    });
    // The vendor API takes JSON only: a write with another body is 415, not an empty body's 422.
    express.use(prefix, jsonOnlyWrites());
    app.setGlobalPrefix(options.globalPrefix, { exclude: OPERATIONAL_PATHS });
  }
  if (!options.openApi) return undefined;

  const config = new DocumentBuilder()
    .setTitle(options.openApi.title)
    .setDescription(options.openApi.description)
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'Vendor API token (`gwt_test_...` / `gwt_live_...`)' }, 'bearer')
    .build();
  const generated = SwaggerModule.createDocument(app, config);
  const document = options.openApi.finish ? finishOpenApiDocument(generated, options.openApi.finish) : generated;
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', useGlobalPrefix: false });
  return document;
}
