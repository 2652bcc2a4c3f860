import { Module, type DynamicModule, type InjectionToken } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { RATE_LIMIT_OPTIONS, RATE_LIMIT_REDIS, RateLimitInterceptor, type RateLimitSettings } from './rate-limit.interceptor.js';

export interface RateLimitModuleOptions extends RateLimitSettings {
  /** Injection token of the Redis client (`REDIS_CLIENT` from #queues); passed in to keep #common free of #queues. */
  redis: InjectionToken;
}

/**
 * API rate limits on every authenticated route of the app importing it. Purchase:
 * `RateLimitModule.forRoot({ code: 'API_RATE_LIMITED', readPerMinute, writePerMinute, redis: REDIS_CLIENT })`.
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: RateLimitModuleOptions): DynamicModule {
    const { redis, ...settings } = options;
    return {
      module: RateLimitModule,
      providers: [
        { provide: RATE_LIMIT_OPTIONS, useValue: settings },
        { provide: RATE_LIMIT_REDIS, useExisting: redis },
        { provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor },
      ],
    };
  }
}
