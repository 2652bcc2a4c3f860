import { once } from 'node:events';
import { Logger } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` on worker connections; producers fail fast instead. */
export function createRedisConnection(url: string, purpose: 'worker' | 'client'): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: purpose === 'worker' ? null : 2,
    enableOfflineQueue: purpose === 'worker',
    connectTimeout: 5_000,
    lazyConnect: false,
  };
  return new Redis(url, options);
}

/**
 * Anything but `noeviction` lets Redis drop queued jobs under memory pressure. Postgres can
 * rebuild them, but staff must know, so this is reported loudly at every start.
 */
export async function reportEvictionPolicy(redis: Redis, logger: Logger): Promise<string | null> {
  try {
    if (redis.status !== 'ready') {
      await Promise.race([once(redis, 'ready'), new Promise((_, reject) => setTimeout(() => reject(new Error('Redis not ready after 5 s')), 5_000).unref())]);
    }
    const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as [string, string];
    if (policy !== 'noeviction') {
      logger.error(
        `REDIS MISCONFIGURED: maxmemory-policy is "${policy}", expected "noeviction". Redis may evict queued jobs; ` +
          'the outbox relay will re-enqueue them from PostgreSQL, but work will be delayed. Set maxmemory-policy noeviction.',
      );
    }
    return policy;
  } catch (error) {
    // Managed Redis services often disable CONFIG; say so rather than guess.
    logger.warn(`Could not read Redis maxmemory-policy (${(error as Error).message}); make sure it is noeviction`);
    return null;
  }
}
