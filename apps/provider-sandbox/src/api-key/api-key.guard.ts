import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../sandbox-options.js';
import { sandboxError } from '../sandbox-errors.js';
import { PUBLIC_ROUTE } from './public-route.decorator.js';

/** Like a real provider: every route needs `X-Api-Key` unless it is marked @PublicRoute(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly expectedDigest: Buffer;

  constructor(
    private readonly reflector: Reflector,
    @Inject(SANDBOX_OPTIONS) options: SandboxOptions,
  ) {
    this.expectedDigest = digest(options.apiKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const presented = context.switchToHttp().getRequest<Request>().header('x-api-key');
    // Compare digests so the comparison takes the same time whatever the presented length.
    if (presented !== undefined && timingSafeEqual(digest(presented), this.expectedDigest)) return true;
    throw sandboxError(401, 'UNAUTHORIZED', 'missing or invalid X-Api-Key');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
