import { Inject, Injectable, Logger, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, switchMap, type Observable } from 'rxjs';
import type { Request, Response } from 'express';
import { RateLimitedError, ServiceUnavailableError } from '../errors/domain-error.js';
import type { ErrorCode } from '../errors/error-catalogue.js';

export const RATE_LIMIT_OPTIONS = Symbol('RATE_LIMIT_OPTIONS');
export const RATE_LIMIT_REDIS = Symbol('RATE_LIMIT_REDIS');

export interface RateLimitSettings {
  /** Error code of a refused request: `API_RATE_LIMITED` on both gateways. */
  code: ErrorCode;
  readPerMinute: number;
  writePerMinute: number;
  /**
   * Separates this gateway's buckets from another's: one token may hold purchase and payout
   * abilities, and traffic on one API must not use up the other's allowance. Absent: the
   * purchase gateway's original keys.
   */
  scope?: string;
}

/** The Redis command the limiter needs (an ioredis client satisfies it). */
export interface RateLimitRedis {
  eval(script: string, keyCount: number, key: string, expiryMs: number): Promise<unknown>;
}

/**
 * Counts the request and (re)sets the bucket's expiry atomically, as MULTI INCR PEXPIRE EXEC
 * did, in one command: the transaction's four commands and their replies cost ~3 % of a
 * gateway's CPU per request under load (docs/BENCHMARKS.md).
 */
const COUNT_SCRIPT = `local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return count`;

const WINDOW_MS = 60_000;
/** A Redis that accepts the connection but does not answer must not hold requests: give up after this. */
export const RATE_LIMIT_REDIS_TIMEOUT_MS = 1_000;
/** Retry-After of the 503 answered while the limiter cannot count (Redis down): a short outage is the common case. */
export const RATE_LIMIT_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type RateLimitBucket = 'read' | 'write' | 'validate';
const RATE_LIMIT_BUCKET = 'rate-limit:bucket';

/**
 * Counts the route's requests in their own bucket instead of the method's: a dry run
 * (validate-only) must not use up the write allowance of the real calls, yet is limited itself
 * (the write limit per minute, in a bucket of its own).
 */
export const RateLimitBucketOf = (bucket: RateLimitBucket) => SetMetadata(RATE_LIMIT_BUCKET, bucket);

/**
 * Per-token fixed one-minute windows in Redis, with separate read and write buckets, so a burst
 * of polling cannot starve purchases and the other way round. It runs as an interceptor, i.e.
 * after the authentication guard, and only for authenticated requests (public routes such as
 * health and the provider callback are not counted). If Redis cannot count the request, the
 * request is refused (503 SERVICE_UNAVAILABLE with Retry-After) before any handler runs: an
 * uncounted request would make the limit a suggestion exactly when something is already wrong,
 * and the provider calls behind lookups, quotes and purchases are what the limit protects.
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  private readonly logger = new Logger(RateLimitInterceptor.name);

  constructor(
    @Inject(RATE_LIMIT_OPTIONS) private readonly settings: RateLimitSettings,
    @Inject(RATE_LIMIT_REDIS) private readonly redis: RateLimitRedis,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request & { user?: { tokenId?: string } }>();
    const tokenId = request.user?.tokenId;
    if (!tokenId) return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    const bucket = this.reflector.get<RateLimitBucket | undefined>(RATE_LIMIT_BUCKET, context.getHandler()) ?? (READ_METHODS.has(request.method) ? 'read' : 'write');
    return from(this.admit(tokenId, bucket, response)).pipe(switchMap(() => next.handle()));
  }

  private async admit(tokenId: string, bucket: RateLimitBucket, response: Response): Promise<void> {
    const limit = bucket === 'read' ? this.settings.readPerMinute : this.settings.writePerMinute;
    const now = Date.now();
    const window = Math.floor(now / WINDOW_MS);
    const key = `gw:rate:${this.settings.scope ? `${this.settings.scope}:` : ''}${bucket}:${tokenId}:${window}`;
    let count: number;
    try {
      count = Number(await withTimeout(this.redis.eval(COUNT_SCRIPT, 1, key, 2 * WINDOW_MS), RATE_LIMIT_REDIS_TIMEOUT_MS));
      if (!Number.isFinite(count)) throw new Error('unexpected INCR reply');
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'Rate limiter unavailable; request refused');
      throw new ServiceUnavailableError(RATE_LIMIT_UNAVAILABLE_RETRY_AFTER_SECONDS);
    }
    response.setHeader('X-RateLimit-Limit', String(limit));
    response.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    if (count > limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
      throw new RateLimitedError(this.settings.code, retryAfterSeconds);
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
