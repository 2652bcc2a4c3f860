import 'reflect-metadata';
import type { DynamicModule, INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { configureHttpApp, type HttpAppOptions } from '#common';
import { ConfigValidationError, loadConfig, type GatewayEnv } from '#config';

export interface ServiceDefinition {
  name: string;
  defaultPort: number;
  module: (config: GatewayEnv) => DynamicModule;
  http: HttpAppOptions;
}

/** Validates the environment or exits with a readable message instead of a stack trace. */
export function loadConfigOrExit(): GatewayEnv {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/** The whole of every HTTP deployable's main.ts. */
export async function startHttpService(definition: ServiceDefinition): Promise<INestApplication> {
  const config = loadConfigOrExit();
  const app = await NestFactory.create(definition.module(config), { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  configureHttpApp(app, definition.http);
  installShutdownDeadline(app, config.SHUTDOWN_GRACE_MS);
  await app.listen(config.PORT ?? definition.defaultPort, '0.0.0.0');
  app.get(Logger).log(`${definition.name} listening on port ${config.PORT ?? definition.defaultPort} (APP_ENV=${config.APP_ENV})`);
  return app;
}

/**
 * On SIGTERM Nest closes the app: the HTTP server stops accepting and finishes in-flight
 * requests, workers finish their jobs. If that overruns the grace period the process exits
 * anyway, before Kubernetes' SIGKILL, so the exit is logged rather than silent.
 */
function installShutdownDeadline(app: INestApplication, graceMs: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      app.get(Logger).log(`${signal} received: draining for up to ${graceMs} ms`);
      setTimeout(() => {
        app.get(Logger).error(`Shutdown exceeded ${graceMs} ms; exiting with work still in flight`);
        process.exit(1);
      }, graceMs).unref();
    });
  }
}

export type { INestApplicationContext };
