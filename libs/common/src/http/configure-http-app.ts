import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import helmet from 'helmet';

export interface HttpAppOptions {
  /** Prefix for vendor routes; health, metrics and docs stay at the root for probes and scrapers. */
  globalPrefix?: string;
  bodyLimit: string;
  /** Also parse HTML form posts (application/x-www-form-urlencoded): the vendor dashboard. */
  forms?: boolean;
  openApi?: { title: string; description: string };
}

export const OPERATIONAL_PATHS = ['health/live', 'health/ready', 'metrics'];

/**
 * Express-level setup shared by main.ts and the e2e tests, so tests exercise exactly what
 * production serves. Guards, filters, pipes and interceptors come from the modules.
 */
export function configureHttpApp(app: INestApplication, options: HttpAppOptions): OpenAPIObject | undefined {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  express.set('trust proxy', 1);
  // No ETag: every answer here is live money state that must not be served from a conditional
  // cache, and hashing each JSON body cost ~1 % of a gateway's CPU (docs/BENCHMARKS.md).
  express.set('etag', false);
  express.use(helmet({ contentSecurityPolicy: false }));
  express.useBodyParser('json', { limit: options.bodyLimit, strict: true });
  if (options.forms) express.useBodyParser('urlencoded', { limit: options.bodyLimit, extended: false });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix, { exclude: OPERATIONAL_PATHS });
  if (!options.openApi) return undefined;

  const config = new DocumentBuilder()
    .setTitle(options.openApi.title)
    .setDescription(options.openApi.description)
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Vendor API token (`gwt_...`)' }, 'bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', useGlobalPrefix: false });
  return document;
}
