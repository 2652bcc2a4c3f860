import type { Request } from 'express';
import type { DashboardSession } from '#dashboard';

/** An Express request after the session guard: `dashboard` is set on every non-public page. */
export interface DashboardRequest extends Request {
  dashboard?: DashboardSession;
}

/** Reads one cookie without a parser dependency; values are our own base64url secrets. */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

export function clientAddress(request: Request): string {
  // trust proxy is 1 (configureHttpApp): request.ip is the address the ingress saw.
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}
