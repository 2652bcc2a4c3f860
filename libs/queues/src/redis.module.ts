import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { settleWithin } from '#common';
import { GatewayEnv } from '#config';
import { createRedisConnection, reportEvictionPolicy } from './redis-connection.js';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

@Injectable()
class RedisLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async onModuleInit(): Promise<void> {
    await reportEvictionPolicy(this.redis, this.logger);
  }

  /** QUIT waits in ioredis's offline queue while the client reconnects; past the bound the socket is simply dropped. */
  async onApplicationShutdown(): Promise<void> {
    const quitting = this.redis.quit().catch(() => this.redis.disconnect());
    if (!(await settleWithin(quitting, 2_000))) this.redis.disconnect();
  }
}

/** One shared ioredis client for rate limits, health checks and producers. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [GatewayEnv],
      useFactory: (config: GatewayEnv) => {
        const redis = createRedisConnection(config.REDIS_URL, 'client');
        // Errors surface through readiness and the calls that fail; the listener stops ioredis crashing the process.
        redis.on('error', () => undefined);
        return redis;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
