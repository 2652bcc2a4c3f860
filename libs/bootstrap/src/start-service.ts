import 'reflect-metadata';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { configureHttpApp, operationalServer, type HttpAppOptions } from '#common';
import { ALL_CONFIG_GROUPS, ConfigValidationError, loadConfig, type ConfigGroup, type GatewayEnv } from '#config';

/*
 * Process start-up of every deployable, the top of the platform layer: it composes #config and
 * #common's HTTP set-up, and is imported only by the apps' main.ts (and the ops CLI). Kept out of
 * #observability so that lib stays a provider of logs, metrics and health, not an entry point.
 */

/** A deployable's root module: the config groups it uses (only they are validated) and how it is built from them. */
export interface RootModule {
  readonly configGroups: readonly ConfigGroup[];
  register(config: GatewayEnv): DynamicModule;
}

export interface ServiceDefinition {
  name: string;
  defaultPort: number;
  module: RootModule;
  http: HttpAppOptions;
  /** With `http.operationalPortOnly`: the port of /health/* and /metrics unless OPERATIONAL_PORT says otherwise. */
  defaultOperationalPort?: number;
}

/** Validates the environment or exits with a readable message instead of a stack trace. */
export function loadConfigOrExit(groups: readonly ConfigGroup[] = ALL_CONFIG_GROUPS): GatewayEnv {
  try {
    return loadConfig(process.env, {}, groups);
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
  const config = loadConfigOrExit(definition.module.configGroups);
  const app = await NestFactory.create(definition.module.register(config), { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  configureHttpApp(app, { ...definition.http, trustedProxyHops: config.TRUSTED_PROXY_HOPS });
  installShutdownDeadline(app, config.SHUTDOWN_GRACE_MS);
  // Keep-alive and header timeouts from the configuration (why they matter: GatewayEnv).
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  await app.listen(config.PORT ?? definition.defaultPort, '0.0.0.0');
  app.get(Logger).log(`${definition.name} listening on port ${config.PORT ?? definition.defaultPort} (APP_ENV=${config.APP_ENV})`);
  if (definition.http.operationalPortOnly) {
    const port = config.OPERATIONAL_PORT ?? definition.defaultOperationalPort ?? 0;
    const operational = operationalServer(app);
    await new Promise<void>((resolve, reject) => operational.once('error', reject).listen(port, '0.0.0.0', resolve));
    // Health and metrics stop with the app: once it is closing, the probes may see the port go.
    server.once('close', () => operational.close());
    app.get(Logger).log(`${definition.name} serves /health/* and /metrics on port ${port} only`);
  }
  return app;
}

/**
 * On SIGTERM or SIGINT the app closes: the HTTP server stops accepting and finishes in-flight
 * requests, workers finish the jobs they hold (BeforeApplicationShutdown), then connections
 * close and the process exits 0. If draining overruns the grace period the process exits 1
 * anyway, before Kubernetes' SIGKILL, so the cut is logged rather than silent.
 */
export function installShutdownDeadline(app: INestApplication, graceMs: number): void {
  let stopping = false;
  // Nest runs the destroy and before-shutdown hooks, then closes the HTTP server (which waits for
  // its connections), then the shutdown hooks: knowing which stage overran says where to look.
  let shutdownPhase = 'before-shutdown hooks or open HTTP connections';
  const server = app.getHttpServer() as Server;
  const inFlight = trackRequestsInFlight(server);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      const logger = app.get(Logger);
      logger.log(`${signal} received: draining for up to ${graceMs} ms`);
      setTimeout(() => {
        // What still holds the process (sockets, timers, pool clients), so a stuck drain can be traced.
        const holding = process.getActiveResourcesInfo().reduce<Record<string, number>>((counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }), {});
        const requests = [...inFlight].map((request) => `${request.method} ${request.url}`);
        logger.error({ holding, sockets: openSockets(), requests, phase: shutdownPhase }, `Shutdown exceeded ${graceMs} ms; exiting with work still in flight`);
        process.exit(1);
      }, graceMs).unref();
      // server.close() waits for every connection to end, and Node's closeIdleConnections() does
      // not count a connection that has not yet sent a request as idle (the container test caught
      // one, 0 bytes read, holding a drain for the whole grace period; pre-opened connections from
      // proxies and clients look the same). So the drain goes by requests: once none is in
      // flight, every remaining connection is closed. A keep-alive client whose next request
      // races this sees the connection close, as it would at the keep-alive timeout, and retries.
      setInterval(() => (inFlight.size === 0 ? server.closeAllConnections() : server.closeIdleConnections()), 100).unref();
      server.once('close', () => (shutdownPhase = 'HTTP server closed; shutdown hooks (connections) running'));
      app.close().then(
        () => {
          logger.log('Drained; exiting');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'Shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

/** Requests received whose response has not yet finished or been abandoned. */
function trackRequestsInFlight(server: Server): Set<IncomingMessage> {
  const inFlight = new Set<IncomingMessage>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    inFlight.add(request);
    response.once('close', () => inFlight.delete(request));
  });
  return inFlight;
}

/**
 * The process's open sockets as `local -> remote` (an incoming HTTP connection shows the app's
 * port on the left): what a stuck drain still waits on. Node has no public API listing handles;
 * `_getActiveHandles` is stable in practice and used only for this log line.
 */
function openSockets(): string[] {
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  return handles
    .filter((handle): handle is Socket => handle instanceof Socket && typeof handle.remotePort === 'number')
    .map((socket) => {
      // An incoming HTTP connection carries its current response, if any, as _httpMessage.
      const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
      const state = [socket.readyState === 'open' ? '' : socket.readyState, response ? `response ${response.writableEnded ? 'ended' : 'open'}` : '', socket.isPaused() ? 'paused' : ''];
      return `${socket.localPort} -> ${socket.remoteAddress}:${socket.remotePort} read ${socket.bytesRead} B written ${socket.bytesWritten} B ${state.filter(Boolean).join(' ')}`.trim();
    });
}
