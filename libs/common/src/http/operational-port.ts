import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * `/health/live`, `/health/ready` and `/metrics` as Express routes them: in any letter case, with
 * trailing slashes, with a query string.
 */
const OPERATIONAL_PATH = /^\/(?:health\/(?:live|ready)|metrics)\/*(?:\?|$)/i;

/** Set on a request that arrived through the operational server, never by anything a client sends. */
const VIA_OPERATIONAL_PORT = Symbol('viaOperationalPort');

type MarkedRequest = IncomingMessage & { [VIA_OPERATIONAL_PORT]?: true };

/**
 * For the signed-in web apps, whose every path on the app's port faces browsers: health and
 * metrics answer 404 there, whatever the ingress in front forwards, and only on the operational
 * server below (its own port, reached by the kubelet and Prometheus inside the cluster).
 */
export function operationalPathsElsewhere() {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (OPERATIONAL_PATH.test(request.originalUrl) && !(request as MarkedRequest)[VIA_OPERATIONAL_PORT]) {
      response.status(404).type('text/plain').send('Not Found');
      return;
    }
    next();
  };
}

/**
 * An HTTP server (not yet listening) that serves the app's health and metrics routes and
 * nothing else: the same Nest routes, so probes see exactly what the app would answer.
 */
export function operationalServer(app: INestApplication): Server {
  const handler = app.getHttpAdapter().getInstance() as (request: IncomingMessage, response: ServerResponse) => void;
  return createServer((request: MarkedRequest, response) => {
    if (request.method !== 'GET' || !OPERATIONAL_PATH.test(request.url ?? '')) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
      return;
    }
    request[VIA_OPERATIONAL_PORT] = true;
    handler(request, response);
  });
}
