import type { InjectionToken, Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayEnv } from '#config';
import { SessionCookies } from './cookies.js';
import { SignInLimiter } from './sign-in-limiter.js';

/**
 * An app's SessionCookies and SignInLimiter, both named after it (the vendor dashboard: `dash`, the
 * back-office: `staff`), so neither app's cookies mean anything to the other and their sign-ins
 * are counted apart. `redis` is the RedisModule's client token.
 */
export function signInProviders(name: string, redis: InjectionToken): Provider[] {
  return [
    { provide: SessionCookies, inject: [GatewayEnv], useFactory: (env: GatewayEnv) => new SessionCookies(env, name) },
    {
      provide: SignInLimiter,
      inject: [redis, GatewayEnv],
      useFactory: (client: Redis, env: GatewayEnv) => new SignInLimiter(client, `${env.QUEUE_PREFIX}:${name}:signin`),
    },
  ];
}
